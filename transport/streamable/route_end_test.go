package streamable

import (
	"net/http"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
)

// With routed messages, DELETE on one instance ends the session's GET
// stream open on another at once, not at that instance's next janitor
// sweep (a minute here), and that instance lets its copy go.
func TestDeleteElsewhereEndsTheRoutedGETStreamAtOnce(t *testing.T) {
	opts := routedOptions()
	opts.SessionIdleTimeout = -1 // the janitor sweeps once a minute
	a, b := startRouted(t, opts), startRouted(t, opts)
	sid := initSession(t, a.url, mcp.Version20251125)
	get := openGet(t, b.url, sid, "")
	if ev := nextEvent(t, get); len(ev.Data) != 0 {
		t.Fatalf("the GET stream starts with %+v, want the priming event", ev)
	}
	wantStatus(t, do(t, "DELETE", a.url, hdr{"Mcp-Session-Id": sid}, ""), http.StatusNoContent)
	ended := make(chan error, 1)
	go func() {
		for {
			if _, err := get.Next(); err != nil {
				ended <- err
				return
			}
		}
	}()
	select {
	case <-ended:
	case <-time.After(routedWait):
		t.Fatal("the GET stream on the other instance is still open after DELETE")
	}
	if b.h.sessions.lookup(sid) != nil {
		t.Error("the other instance still holds the deleted session")
	}
}
