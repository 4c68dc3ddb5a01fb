package streamable

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/sse"
)

// routedWait bounds the wait for something the cluster does at once: only
// a failing test waits this long.
const routedWait = 20 * time.Second

// routedInstance is a server on a Handler that routes its shared sessions'
// messages.
type routedInstance struct {
	srv  *server.Server
	h    *Handler
	url  string
	gets chan struct{} // a GET request's handling ended
}

// startRouted starts a routing instance on the shared stores of opts. Its
// server has a tool, and so announces changes of its tool list.
func startRouted(t *testing.T, opts HandlerOptions) *routedInstance {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	in := &routedInstance{gets: make(chan struct{}, 8)}
	in.srv = server.New(mcp.Implementation{Name: "routed", Version: "1"}, &server.Options{Logger: quiet})
	in.srv.AddRawTool(&mcp.Tool{Name: "first"}, noTool)
	opts.Logger = quiet
	in.h, in.url = serveBehind(t, in.srv, &opts, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			if r.Method == http.MethodGet {
				in.gets <- struct{}{}
			}
		})
	})
	return in
}

// routedOptions are the options of a cluster's instances: shared memory
// stores of sessions and messages, and one bus.
func routedOptions() HandlerOptions {
	return HandlerOptions{Sessions: sessions.NewMemoryStore(), Messages: sessions.NewMemoryMessageLog(), Bus: tasks.NewMemoryBus()}
}

// dropGet opens the session's GET stream on in, reads its priming event,
// then drops the connection and waits until in has let it go. It returns
// the priming event's ID, from which the client resumes.
func dropGet(t *testing.T, in *routedInstance, sid string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, in.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	wantStatus(t, resp, http.StatusOK)
	prime := nextEvent(t, sse.NewReader(resp.Body, 1<<20))
	cancel()
	resp.Body.Close()
	select {
	case <-in.gets:
	case <-time.After(routedWait):
		t.Fatal("the instance did not notice that the GET stream's client went away")
	}
	return prime.ID
}

// nextMessageWithin returns the next event with data of a GET stream.
func nextMessageWithin(t *testing.T, r *sse.Reader) sse.Event {
	t.Helper()
	got := make(chan sse.Event, 1)
	go func() {
		for {
			ev, err := r.Next()
			if err != nil {
				close(got)
				return
			}
			if len(ev.Data) > 0 {
				ev.Data = append([]byte(nil), ev.Data...)
				got <- ev
				return
			}
		}
	}()
	select {
	case ev, ok := <-got:
		if !ok {
			t.Fatal("the GET stream ended without a message")
		}
		return ev
	case <-time.After(routedWait):
		t.Fatal("no message on the GET stream")
		return sse.Event{}
	}
}

// A list change made while the client reconnects its GET stream is kept
// for it, as a resources/updated is: the client resuming with
// Last-Event-ID, on the instance it left or another, gets it.
func TestAListChangeWhileTheGETStreamReconnectsReachesTheResumedStream(t *testing.T) {
	for _, resumeOn := range []string{"A", "B"} {
		t.Run("resumed on "+resumeOn, func(t *testing.T) {
			opts := routedOptions()
			a, b := startRouted(t, opts), startRouted(t, opts)
			sid := initSession(t, a.url, mcp.Version20251125)
			last := dropGet(t, a, sid)

			box, err := opts.Bus.Subscribe(context.Background(), boxSignal(sid, sessions.ToClient))
			if err != nil {
				t.Fatal(err)
			}
			defer box.Close()
			b.srv.AddRawTool(&mcp.Tool{Name: "added"}, noTool)
			select {
			case <-box.Signals():
			case <-time.After(routedWait):
				t.Fatal("the tool list changed while the client reconnected its GET stream, and nothing was kept for the client")
			}

			url := a.url
			if resumeOn == "B" {
				url = b.url
			}
			ev := nextMessageWithin(t, openGet(t, url, sid, last))
			if n, ok := message(t, ev).(*jsonrpc.Request); !ok || n.Method != mcp.NotificationToolsListChanged {
				t.Fatalf("the GET stream resumed on %s after %s carried %s, want tools/list_changed", resumeOn, last, ev.Data)
			}
		})
	}
}

// A GET stream whose client went away counts as held where it was for
// readerLease, then no more: a session whose client never comes back is
// not sent list changes for ever.
func TestADroppedGETStreamCountsAsHeldForTheReaderLease(t *testing.T) {
	a := startRouted(t, routedOptions())
	sid := initSession(t, a.url, mcp.Version20251125)
	dropGet(t, a, sid)
	held := cluster{a.h.router}
	if !held.HoldsStream(sid) {
		t.Fatal("just after its client went away, the GET stream does not count as held where it was")
	}
	a.h.sessions.skew.Store(int64(readerLease))
	if held.HoldsStream(sid) {
		t.Fatalf("%v after its client went away, the GET stream still counts as held", readerLease)
	}
}

// A GET stream that ended with its session (DELETE) leaves nothing: no
// reader record in the store, and nothing in the router.
func TestAGETStreamEndedWithItsSessionLeavesNothing(t *testing.T) {
	opts := routedOptions()
	a := startRouted(t, opts)
	sid := initSession(t, a.url, mcp.Version20251125)
	openGet(t, a.url, sid, "")
	wantStatus(t, do(t, "DELETE", a.url, hdr{"Mcp-Session-Id": sid}, ""), http.StatusNoContent)
	select {
	case <-a.gets:
	case <-time.After(routedWait):
		t.Fatal("the GET stream did not end with its session")
	}
	if ok, err := opts.Messages.HasReader(context.Background(), sid, time.Now()); err != nil || ok {
		t.Errorf("after DELETE, HasReader = %v, %v; want no reader", ok, err)
	}
	a.h.router.mu.Lock()
	defer a.h.router.mu.Unlock()
	if n := len(a.h.router.attached); n != 0 {
		t.Errorf("after DELETE the router still notes %d GET streams", n)
	}
}
