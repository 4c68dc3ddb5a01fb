package streamable

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/sessions"
)

// sharedInstance serves a real server on a Handler sharing store.
func sharedInstance(t *testing.T, store sessions.Store) (*Handler, string) {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "shared", Version: "1"}, &server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := NewHandler(s, &HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		hs.Close()
	})
	return h, hs.URL
}

// A session idle on one instance but in use on another lives on; one idle
// on all of them past the timeout expires for all of them.
func TestSharedSessionsExpireForTheCluster(t *testing.T) {
	store := sessions.NewMemoryStore()
	a, urlA := sharedInstance(t, store)
	b, urlB := sharedInstance(t, store)
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	sid := initSession(t, urlA, mcp.Version20251125)
	start, err := store.Get(context.Background(), sid)
	if err != nil {
		t.Fatalf("the session is not in the store: %v", err)
	}

	// Used through B half an hour later: LastSeen, stale by more than a
	// quarter of the timeout, moves.
	b.sessions.skew.Store(int64(30 * time.Minute))
	wantStatus(t, do(t, "POST", urlB, legacyHeaders(sid), ping), http.StatusOK)
	rec, _ := store.Get(context.Background(), sid)
	if got := rec.LastSeen.Sub(start.LastSeen); got < 30*time.Minute {
		t.Fatalf("a request half an hour on moved LastSeen by %v", got)
	}
	// A request within the quarter writes nothing.
	wantStatus(t, do(t, "POST", urlB, legacyHeaders(sid), ping), http.StatusOK)
	if again, _ := store.Get(context.Background(), sid); !again.LastSeen.Equal(rec.LastSeen) {
		t.Fatalf("a request within a quarter of the timeout wrote LastSeen")
	}

	// A's copy, idle there past the timeout, is dropped; the session lives,
	// and A takes it over again on its next request.
	now := time.Now()
	if n := a.sessions.sweep(now.Add(70 * time.Minute)); n != 1 {
		t.Fatalf("A's sweep dropped %d sessions, want its idle copy", n)
	}
	a.sessions.sweepStore(now.Add(70 * time.Minute))
	wantStatus(t, do(t, "POST", urlA, legacyHeaders(sid), ping), http.StatusOK)

	// Idle everywhere for the timeout (and the touch interval LastSeen may
	// lag by): the store expires it, and every instance answers 404.
	b.sessions.sweepStore(rec.LastSeen.Add(time.Hour + 15*time.Minute + time.Millisecond))
	if _, err := store.Get(context.Background(), sid); err == nil {
		t.Fatalf("the idle session is still in the store")
	}
	if b.sessions.lookup(sid) != nil {
		t.Fatalf("B still holds the expired session")
	}
	wantStatus(t, do(t, "POST", urlA, legacyHeaders(sid), ping), http.StatusNotFound)
}

// A copy that ends here says whether the session ended for every instance:
// a copy idle here while the store keeps the session is not deleted; one
// whose session was ended in the store (by DELETE elsewhere) is, even when
// it is the idle sweep here that drops it.
func TestSharedSessionsReportWhetherTheyWereDeleted(t *testing.T) {
	store := sessions.NewMemoryStore()
	a, urlA := sharedInstance(t, store)
	later := time.Now().Add(70 * time.Minute)

	kept := initSession(t, urlA, mcp.Version20251125)
	keptCopy := a.sessions.lookup(kept)
	deleted := initSession(t, urlA, mcp.Version20251125)
	deletedCopy := a.sessions.lookup(deleted)
	if err := store.End(context.Background(), deleted, ""); err != nil { // DELETE on another instance
		t.Fatal(err)
	}
	if n := a.sessions.sweep(later); n != 2 {
		t.Fatalf("the sweep dropped %d idle copies, want 2", n)
	}
	if (sharedSession{keptCopy}).Deleted() {
		t.Error("an idle copy of a session the store keeps reports it deleted")
	}
	if !(sharedSession{deletedCopy}).Deleted() {
		t.Error("an idle copy of a session ended in the store does not report it deleted")
	}
}

// A request that writes the session (here logging/setLevel) asks the store
// nothing before the write, which checks the session: when it finds the
// session ended by another instance, the request is answered 404 and the
// instance drops its copy, as a Touch finding it ended would.
func TestSharedSessionsAWriteFindsTheSessionEndedElsewhere(t *testing.T) {
	store := sessions.NewMemoryStore()
	_, urlA := sharedInstance(t, store)
	b, urlB := sharedInstance(t, store)
	setLevel := `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"debug"}}`
	sid := initSession(t, urlA, mcp.Version20251125)
	wantStatus(t, do(t, "POST", urlB, legacyHeaders(sid), setLevel), http.StatusOK)
	held := b.sessions.lookup(sid)
	if held == nil {
		t.Fatal("B did not take the session over")
	}
	if rec := held.stored.Load(); rec == nil || rec.Level != "debug" {
		t.Fatalf("B's copy after logging/setLevel holds %+v; want the level the write returned", rec)
	}
	if err := store.End(context.Background(), sid, ""); err != nil { // DELETE on another instance
		t.Fatal(err)
	}
	wantError(t, do(t, "POST", urlB, legacyHeaders(sid), setLevel), http.StatusNotFound, CodeSessionNotFound)
	if b.sessions.lookup(sid) != nil {
		t.Error("B still holds a session its write found ended")
	}
	if !(sharedSession{held}).Deleted() {
		t.Error("B's copy does not report the session deleted")
	}
}
