package stores_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/weftmcp/weft/bench/internal/placement"
	"github.com/weftmcp/weft/bench/internal/stores"
	"github.com/weftmcp/weft/sessions"
)

// The round trips made in serving an HTTP request are told apart from
// those made in the background: a session store call made with a
// request's context counts as the request's, one made with any other
// context (as the expiry sweep's are) as background.
func TestRoundTripsOutsideRequestsCountAsBackground(t *testing.T) {
	p, err := placement.New(t.Context(), "redis", "")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Cleanup(func() { p.Remove(t.Context()) })
	o, err := stores.Open(t.Context(), "redis", p.At, p.Scope)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	now := time.Now()
	if err := o.Sessions.Create(t.Context(), &sessions.Record{ID: "s", CreatedAt: now, LastSeen: now}); err != nil {
		t.Fatal(err)
	}
	// go-redis sends a script Redis has not seen twice (EVALSHA, then
	// EVAL): run each once before counting.
	if _, err := o.Sessions.Touch(t.Context(), "s", now, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Sessions.Expire(t.Context(), now.Add(-time.Hour), 10); err != nil {
		t.Fatal(err)
	}
	all0, background0, ok := o.RoundTrips()
	if !ok {
		t.Fatal("the round trips to Redis are not counted")
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := o.Sessions.Touch(r.Context(), "s", now, time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	defer hs.Close()
	for range 3 {
		resp, err := http.Get(hs.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the request's Touch failed: HTTP %d", resp.StatusCode)
		}
	}
	if _, err := o.Sessions.Expire(t.Context(), now.Add(-time.Hour), 10); err != nil {
		t.Fatal(err)
	}
	all, background, _ := o.RoundTrips()
	if all-all0 != 4 || background-background0 != 1 {
		t.Errorf("3 Touches in requests and 1 Expire outside any counted %d round trips, %d of them background; want 4 and 1",
			all-all0, background-background0)
	}
}
