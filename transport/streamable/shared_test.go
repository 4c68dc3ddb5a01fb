package streamable

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/transport/sse"
)

// sharedInstance serves a real server on a Handler sharing store.
func sharedInstance(t *testing.T, store sessions.Store) (*Handler, string) {
	t.Helper()
	return sharedInstanceWith(t, HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour})
}

// sharedInstanceWith serves a real server on a Handler with opts (and a
// quiet logger), behind asClient.
func sharedInstanceWith(t *testing.T, opts HandlerOptions) (*Handler, string) {
	t.Helper()
	_, h, url := sharedServer(t, opts)
	return h, url
}

// sharedServer is sharedInstanceWith that also returns the server.
func sharedServer(t *testing.T, opts HandlerOptions) (*server.Server, *Handler, string) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	s := server.New(mcp.Implementation{Name: "shared", Version: "1"}, &server.Options{Logger: quiet})
	opts.Logger = quiet
	h := NewHandler(s, &opts)
	hs := httptest.NewServer(asClient(h))
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		hs.Close()
	})
	return s, h, hs.URL
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

// overlapStore is a memory session store that notes how many Subscribe
// calls of one session run at once, and lets the others run in the middle
// of each.
type overlapStore struct {
	*sessions.MemoryStore
	mu        sync.Mutex
	now, most int
}

func (s *overlapStore) Subscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	s.mu.Lock()
	s.now++
	s.most = max(s.most, s.now)
	s.mu.Unlock()
	for range 10 {
		runtime.Gosched()
	}
	rec, err := s.MemoryStore.Subscribe(ctx, id, uri, now)
	for range 10 {
		runtime.Gosched()
	}
	s.mu.Lock()
	s.now--
	s.mu.Unlock()
	return rec, err
}

// Subscriptions made at once through one Handler are all in its copy of
// the session: its writes go one at a time, so the record the last
// returns, which the copy keeps, holds every one.
func TestSharedSessionsConcurrentSubscriptionsAreAllKeptHere(t *testing.T) {
	store := &overlapStore{MemoryStore: sessions.NewMemoryStore()}
	s := server.New(mcp.Implementation{Name: "shared", Version: "1"}, &server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.AddResource(&mcp.Resource{URI: "file:///0", Name: "r"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "r"}}}, nil
		})
	h, url := serve(t, s, &HandlerOptions{Sessions: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sid := initSession(t, url, mcp.Version20251125)
	const n = 20
	var wg sync.WaitGroup
	statuses := make(chan int, n)
	for i := range n {
		wg.Go(func() {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":"file:///%d"}}`, 10+i, i)
			req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			if err != nil {
				statuses <- 0
				return
			}
			for k, v := range legacyHeaders(sid) {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				statuses <- 0
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	wg.Wait()
	close(statuses)
	for status := range statuses {
		if status != http.StatusOK {
			t.Fatalf("a resources/subscribe answered HTTP %d; want 200", status)
		}
	}
	if store.most != 1 {
		t.Errorf("%d writes of one session ran at once through one Handler; want one at a time", store.most)
	}
	held := h.sessions.lookup(sid).stored.Load()
	if len(held.Subscriptions) != n {
		t.Errorf("the Handler's copy holds %d of the %d subscriptions made through it: %v", len(held.Subscriptions), n, held.Subscriptions)
	}
}

// Copies of sessions taken over are a cache, bounded even when sessions
// never idle out (SessionIdleTimeout < 0): one idle here for
// DefaultSessionIdleTimeout is dropped, and the session, which the store
// keeps, is taken over again on its next request; a session started here
// is kept.
func TestTakenOverCopiesAreDroppedWhenIdleEvenWithoutATimeout(t *testing.T) {
	store := sessions.NewMemoryStore()
	_, urlA := sharedInstanceWith(t, HandlerOptions{Sessions: store, SessionIdleTimeout: -1})
	b, urlB := sharedInstanceWith(t, HandlerOptions{Sessions: store, SessionIdleTimeout: -1})
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	takenOver := initSession(t, urlA, mcp.Version20251125)
	wantStatus(t, do(t, "POST", urlB, legacyHeaders(takenOver), ping), http.StatusOK)
	startedHere := initSession(t, urlB, mcp.Version20251125)

	if n := b.sessions.sweep(time.Now().Add(DefaultSessionIdleTimeout - time.Minute)); n != 0 {
		t.Fatalf("the sweep dropped %d copies idle for less than DefaultSessionIdleTimeout", n)
	}
	if n := b.sessions.sweep(time.Now().Add(DefaultSessionIdleTimeout + time.Minute)); n != 1 {
		t.Fatalf("the sweep dropped %d copies, want the one taken over", n)
	}
	if b.sessions.lookup(takenOver) != nil || b.sessions.lookup(startedHere) == nil {
		t.Fatalf("B holds the copy taken over: %v, the session started there: %v; want false, true",
			b.sessions.lookup(takenOver) != nil, b.sessions.lookup(startedHere) != nil)
	}
	wantStatus(t, do(t, "POST", urlB, legacyHeaders(takenOver), ping), http.StatusOK)
}

// gateStore is a memory session store whose Touch, once armed is closed,
// tells the test it has been called and waits for release.
type gateStore struct {
	*sessions.MemoryStore
	armed   chan struct{}
	entered chan struct{}
	release chan struct{}
}

func (s *gateStore) Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*sessions.Record, error) {
	select {
	case <-s.armed:
		s.entered <- struct{}{}
		<-s.release
	default:
	}
	return s.MemoryStore.Touch(ctx, id, now, every)
}

// A request of a session the store keeps alive is served even when the
// idle sweep drops this instance's copy while the request's Touch is in
// flight: the instance takes the session over afresh rather than answer
// 404 from the copy it looked up before the Touch.
func TestALiveSessionIsServedWhenItsCopyIsDroppedDuringTheTouch(t *testing.T) {
	store := &gateStore{MemoryStore: sessions.NewMemoryStore(), armed: make(chan struct{}),
		entered: make(chan struct{}), release: make(chan struct{})}
	a, url := sharedInstance(t, store)
	sid := initSession(t, url, mcp.Version20251125)

	close(store.armed)
	status := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
		for k, v := range legacyHeaders(sid) {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			status <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		status <- resp.StatusCode
	}()
	<-store.entered // the request has looked its copy up and asks the store
	if n := a.sessions.sweep(time.Now().Add(2 * time.Hour)); n != 1 {
		t.Fatalf("the sweep dropped %d copies, want the idle one", n)
	}
	if _, err := store.Get(context.Background(), sid); err != nil {
		t.Fatalf("the session is no longer in the store: %v", err)
	}
	close(store.release)
	if got := <-status; got != http.StatusOK {
		t.Fatalf("a ping in a session the store keeps alive answered HTTP %d; want 200", got)
	}
	if a.sessions.lookup(sid) == nil {
		t.Error("the instance did not take the session over again")
	}
}

// noTool is a tool handler that returns an empty result.
func noTool(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{}, nil
}

// openGet opens the GET stream of session sid on url, resuming after last
// unless it is empty, and returns its events; the stream closes with the
// test.
func openGet(t *testing.T, url, sid, last string) *sse.Reader {
	t.Helper()
	h := hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid}
	if last != "" {
		h["Last-Event-ID"] = last
	}
	resp := do(t, "GET", url, h, "")
	wantStatus(t, resp, http.StatusOK)
	t.Cleanup(func() { resp.Body.Close() })
	return sse.NewReader(resp.Body, 1<<20)
}

// Without routed messages each instance numbers a shared session's GET
// stream on its own, from a random base, so the IDs two instances issue
// differ; and a Last-Event-ID this instance's GET stream did not issue
// (another's, or one past its newest) is refused with 400 rather than
// accepted with nothing to replay, after which the stream would issue IDs
// the client already holds for other messages.
func TestAGETStreamDoesNotResumeOnAnotherInstanceWithoutRouting(t *testing.T) {
	store := sessions.NewMemoryStore()
	srvA, _, urlA := sharedServer(t, HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour})
	_, _, urlB := sharedServer(t, HandlerOptions{Sessions: store, SessionIdleTimeout: time.Hour})
	srvA.AddRawTool(&mcp.Tool{Name: "first"}, noTool) // the server has tools, and announces their changes
	sid := initSession(t, urlA, mcp.Version20251125)
	getA := openGet(t, urlA, sid, "")
	prime := nextEvent(t, getA)
	srvA.AddRawTool(&mcp.Tool{Name: "added"}, noTool)
	changed := nextEvent(t, getA)
	if n, ok := message(t, changed).(*jsonrpc.Request); !ok || n.Method != mcp.NotificationToolsListChanged {
		t.Fatalf("A's GET stream carried %s, want tools/list_changed", changed.Data)
	}
	_, index, _ := parseEventID(changed.ID)

	refused := func(url, last string) {
		t.Helper()
		resp := do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": last}, "")
		if resp.StatusCode == http.StatusOK {
			resp.Body.Close() // a stream: reading it would wait for its end
			t.Fatalf("resuming the GET stream after %s answered 200; want 400", last)
		}
		wantError(t, resp, http.StatusBadRequest, codeTransport)
	}
	refused(urlB, changed.ID)
	refused(urlA, eventID(0, index+1))

	if primeB := nextEvent(t, openGet(t, urlB, sid, "")); primeB.ID == prime.ID || primeB.ID == changed.ID {
		t.Errorf("B's GET stream starts at event %s, an ID A's issued", primeB.ID)
	}
}

// With no idle timeout (SessionIdleTimeout < 0) the janitor's sweep still
// removes the records of deleted sessions from the store, and no other.
func TestDeletedSessionsLeaveTheStoreWithoutAnIdleTimeout(t *testing.T) {
	store := sessions.NewMemoryStore()
	h, url := sharedInstanceWith(t, HandlerOptions{Sessions: store, SessionIdleTimeout: -1})
	var deleted []string
	for range 3 {
		sid := initSession(t, url, mcp.Version20251125)
		wantStatus(t, do(t, "DELETE", url, hdr{"Mcp-Session-Id": sid}, ""), http.StatusNoContent)
		deleted = append(deleted, sid)
	}
	kept := initSession(t, url, mcp.Version20251125)
	h.sessions.sweepStore(time.Now().Add(100 * 365 * 24 * time.Hour))
	for _, sid := range deleted {
		if rec, err := store.Get(context.Background(), sid); err == nil {
			t.Errorf("session %s, deleted, is still in the store (Ended: %v)", sid, rec.Ended)
		}
	}
	if _, err := store.Get(context.Background(), kept); err != nil {
		t.Errorf("a session never deleted is gone from the store: %v", err)
	}
}

// A session's GET stream open on one instance ends when the session is
// deleted on another, at that instance's next janitor sweep, even with no
// idle timeout (when the sweep expires nothing idle) and when another
// instance's sweep has removed the record already.
func TestDeleteElsewhereEndsTheGETStreamAtTheNextSweep(t *testing.T) {
	store := sessions.NewMemoryStore()
	opts := HandlerOptions{Sessions: store, SessionIdleTimeout: -1}
	_, a, urlA := sharedServer(t, opts)
	srvB, b, urlB := sharedServer(t, opts)
	srvB.AddRawTool(&mcp.Tool{Name: "first"}, noTool) // the server has tools, and announces their changes
	sid := initSession(t, urlA, mcp.Version20251125)
	get := openGet(t, urlB, sid, "")
	if ev := nextEvent(t, get); len(ev.Data) != 0 {
		t.Fatalf("the GET stream starts with %+v, want the priming event", ev)
	}
	wantStatus(t, do(t, "DELETE", urlA, hdr{"Mcp-Session-Id": sid}, ""), http.StatusNoContent)
	// A's janitor ticks first and removes the record, so B cannot learn
	// of the end from the IDs its own Expire returns.
	a.sessions.sweepStore(time.Now())
	b.sessions.sweepStore(time.Now())
	srvB.AddRawTool(&mcp.Tool{Name: "after-delete"}, noTool)
	if ev, err := get.Next(); err == nil {
		t.Fatalf("after DELETE on A and B's sweep, the GET stream on B carried event %s: %s; want it ended", ev.ID, ev.Data)
	}
	if b.sessions.lookup(sid) != nil {
		t.Error("B still holds the deleted session")
	}
}

// touchCounter is a memory session store that counts its Touch calls.
type touchCounter struct {
	*sessions.MemoryStore
	mu      sync.Mutex
	touched []string
}

func (s *touchCounter) Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*sessions.Record, error) {
	s.mu.Lock()
	s.touched = append(s.touched, id)
	s.mu.Unlock()
	return s.MemoryStore.Touch(ctx, id, now, every)
}

// A session ID no instance could have issued gets 404 without a store
// round trip: it names no session, and a store building keys from it
// must not be asked (in Redis "<id>:subs" named the session's
// subscription set).
func TestAMalformedSessionIDIsNotFoundWithoutAskingTheStore(t *testing.T) {
	store := &touchCounter{MemoryStore: sessions.NewMemoryStore()}
	_, url := sharedInstance(t, store)
	sid := initSession(t, url, mcp.Version20251125)
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	wantStatus(t, do(t, "POST", url, legacyHeaders(sid), ping), http.StatusOK)
	store.mu.Lock()
	store.touched = nil
	store.mu.Unlock()
	for _, bad := range []string{sid + ":subs", "short", strings.Repeat("!", sessionIDLen), sid[:sessionIDLen-1] + "="} {
		wantStatus(t, do(t, "POST", url, legacyHeaders(bad), ping), http.StatusNotFound)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.touched) != 0 {
		t.Errorf("the store was asked about %q; want no round trip for IDs no instance issued", store.touched)
	}
}
