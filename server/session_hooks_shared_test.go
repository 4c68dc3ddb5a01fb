package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/transport/streamable"
)

// hookCall is one call of a session hook on one instance.
type hookCall struct {
	instance, hook string
	info           SessionInfo
}

// hookedInstance is a server whose session hooks report on calls, behind
// a Streamable HTTP handler on the shared session store; it returns the
// handler's URL and the handler.
func hookedInstance(t *testing.T, name string, store sessions.Store, calls chan<- hookCall) (string, *streamable.Handler) {
	t.Helper()
	report := func(hook string) func(context.Context, SessionInfo) {
		return func(_ context.Context, info SessionInfo) { calls <- hookCall{name, hook, info} }
	}
	s := New(mcp.Implementation{Name: name, Version: "1.0.0"}, &Options{Sessions: SessionHooks{
		Start:    report("start"),
		TakeOver: report("takeover"),
		End:      func(info SessionInfo) { calls <- hookCall{name, "end", info} },
	}})
	h := streamable.NewHandler(s, &streamable.HandlerOptions{Logger: quietLogger, Sessions: store})
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		h.Shutdown(ctx)
		hs.Close()
	})
	return hs.URL, h
}

// nextCall returns the next hook call, failing the test if it is not want
// (instance and hook) or none comes in time.
func nextCall(t *testing.T, calls <-chan hookCall, instance, hook string) SessionInfo {
	t.Helper()
	select {
	case c := <-calls:
		if c.instance != instance || c.hook != hook {
			t.Fatalf("hook %s ran on %s (%+v), want %s on %s", c.hook, c.instance, c.info, hook, instance)
		}
		return c.info
	case <-timeoutAfter(t):
		t.Fatalf("no %s hook ran on %s", hook, instance)
	}
	return SessionInfo{}
}

// timeoutAfter returns a channel that fires waitFor from now.
func timeoutAfter(t *testing.T) <-chan struct{} {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	t.Cleanup(cancel)
	return ctx.Done()
}

func TestSessionHooks_AcrossInstancesSharingTheSessionStore(t *testing.T) {
	store := sessions.NewMemoryStore()
	calls := make(chan hookCall, 16)
	a, _ := hookedInstance(t, "a", store, calls)
	b, hb := hookedInstance(t, "b", store, calls)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`

	// Start on a, where initialize runs; TakeOver on b, at the session's
	// first request there; DELETE on b ends b's copy for good, and a's at
	// its next look at the store.
	hdr := initializeOn(t, a)
	started := nextCall(t, calls, "a", "start")
	if started.TakenOver || started.Final || started.ProtocolVersion != mcp.Version20251125 {
		t.Errorf("Start on a: %+v, want a session initialized here at 2025-11-25", started)
	}
	if r := post(t, b, ping, hdr); r.StatusCode != http.StatusOK {
		t.Fatalf("ping on b: %s", r.Status)
	}
	taken := nextCall(t, calls, "b", "takeover")
	if !taken.TakenOver || taken.ID != started.ID || taken.ProtocolVersion != mcp.Version20251125 || taken.ClientInfo.Name != "c" {
		t.Errorf("TakeOver on b: %+v, want session %s as initialize on a settled it", taken, started.ID)
	}
	if r := post(t, b, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, hdr); r.StatusCode != http.StatusOK {
		t.Fatalf("a second ping on b: %s", r.Status)
	}
	deleteSession(t, b, hdr)
	if end := nextCall(t, calls, "b", "end"); !end.Final || !end.TakenOver {
		t.Errorf("End on b after DELETE there: %+v, want final, of a session taken over", end)
	}
	if r := post(t, a, ping, hdr); r.StatusCode != http.StatusNotFound {
		t.Fatalf("ping on a after DELETE on b: %s, want 404", r.Status)
	}
	if end := nextCall(t, calls, "a", "end"); !end.Final || end.TakenOver {
		t.Errorf("End on a after DELETE on b: %+v, want final, of the session initialized here", end)
	}

	// An instance that shuts down lets its copy go: End is not final, and
	// the session lives on elsewhere.
	hdr = initializeOn(t, a)
	nextCall(t, calls, "a", "start")
	if r := post(t, b, ping, hdr); r.StatusCode != http.StatusOK {
		t.Fatalf("ping on b: %s", r.Status)
	}
	nextCall(t, calls, "b", "takeover")
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	hb.Shutdown(ctx)
	if end := nextCall(t, calls, "b", "end"); end.Final {
		t.Errorf("End on b as it shuts down: %+v, want not final", end)
	}
	if r := post(t, a, ping, hdr); r.StatusCode != http.StatusOK {
		t.Fatalf("ping on a after b shut down: %s, want 200", r.Status)
	}
	select {
	case c := <-calls:
		t.Errorf("an extra hook ran: %+v", c)
	default:
	}
}
