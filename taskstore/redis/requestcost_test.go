package redis_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/taskstore/redis"
	"github.com/weftmcp/weft/transport/streamable"
)

// TestRequestOfKnownSessionCostsOneRoundTrip measures what issue 17 asks:
// on a shared store, a request of a known legacy session costs at most one
// store round trip. Two Handlers (two instances) share one Redis prefix;
// each has a client of its own with a hook that counts the commands it
// sends to Redis (each one round trip; pipelines would count one each),
// and its session store is wrapped to count the calls of each method. A
// session initialized on one instance is used on both: on the one that
// holds it, on the other the first time (taking it over) and after.
//
// Requests that change the session (logging/setLevel, resources/subscribe
// and unsubscribe) cost their write alone, which checks the session as
// Touch does, and DELETE its End alone; but the first request of a
// session on an instance, which takes it over, reads it first.
func TestRequestOfKnownSessionCostsOneRoundTrip(t *testing.T) {
	prefix := newPrefix(t)
	a := newCountedInstance(t, prefix, -1)
	b := newCountedInstance(t, prefix, -1)
	writes := []struct{ method, body string }{
		{"SetLevel", `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"debug"}}`},
		{"Subscribe", `{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"cost://readme"}}`},
		{"Unsubscribe", `{"jsonrpc":"2.0","id":7,"method":"resources/unsubscribe","params":{"uri":"cost://readme"}}`},
	}

	// go-redis runs a script with EVALSHA and, the first time a Redis has
	// not seen it, again with EVAL: one extra round trip per script per
	// Redis server's life, not per request. A first session runs every
	// script (and opens the clients' connections) before anything counts.
	warm := a.initialize(t)
	for _, body := range []string{writes[0].body, writes[1].body, writes[2].body} {
		b.post(t, warm, body)
	}
	b.send(t, http.MethodDelete, warm, "")

	sid := a.initialize(t)
	a.post(t, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	calls := []struct{ what, body string }{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{"tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`},
		{"resources/read", `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"cost://readme"}}`},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`},
	}
	for _, in := range []struct {
		name string
		*countedInstance
	}{{"a, which holds it", a}, {"b, which takes it over with the first", b}, {"b again", b}} {
		for _, c := range calls {
			cost := in.cost(t, func() { in.post(t, sid, c.body) })
			t.Logf("%s on %s: %v", c.what, in.name, cost)
			if cost.roundTrips > 1 || cost.total() > 1 {
				t.Errorf("%s of a known session on %s cost %v; want at most one store round trip", c.what, in.name, cost)
			}
		}
	}

	// A LastSeen older than a quarter of the idle timeout is moved by the
	// same round trip that reads the session. Instance c expires idle
	// sessions (after an hour), so its sweep runs, but not before a minute
	// has passed since this request took the session over.
	c := newCountedInstance(t, prefix, time.Hour)
	raw := newClient(t)
	if err := raw.HSet(t.Context(), "{"+prefix+"}:session:"+sid, "seen", 0).Err(); err != nil {
		t.Fatal(err)
	}
	cost := c.cost(t, func() { c.post(t, sid, calls[0].body) })
	rec, err := c.plain.Get(t.Context(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(rec.LastSeen) > time.Hour {
		t.Errorf("a request of a session last seen long ago left LastSeen at %v; want it moved to now", rec.LastSeen)
	}
	if cost.roundTrips != 1 || cost.calls["Touch"] != 1 {
		t.Errorf("a request that moves LastSeen cost %v; want one Touch in one round trip", cost)
	}

	// A request that writes the session costs the write alone on an
	// instance that holds the session: the write checks that the session
	// lives and returns it, as Touch would have.
	for _, w := range writes {
		cost := a.cost(t, func() { a.post(t, sid, w.body) })
		t.Logf("%s on a, which holds it: %v", w.method, cost)
		if cost.roundTrips != 1 || cost.total() != 1 || cost.calls[w.method] != 1 {
			t.Errorf("a request calling %s cost %v; want %s alone, in one round trip", w.method, cost, w.method)
		}
		if w.method == "Subscribe" {
			if rec, err := c.plain.Get(t.Context(), sid); err != nil || !slices.Equal(rec.Subscriptions, []string{"cost://readme"}) {
				t.Errorf("after resources/subscribe the store holds %+v (%v); want the subscription", rec, err)
			}
		}
	}
	if rec, err := c.plain.Get(t.Context(), sid); err != nil || rec.Level != "debug" || len(rec.Subscriptions) != 0 {
		t.Errorf("after the writes the store holds %+v (%v); want level debug and no subscription", rec, err)
	}
	// An instance that has not seen the session yet reads it first (Touch)
	// to take it over: once per session and instance.
	d := newCountedInstance(t, prefix, -1)
	for i, w := range writes {
		cost := d.cost(t, func() { d.post(t, sid, w.body) })
		t.Logf("%s on d, which takes it over with the first: %v", w.method, cost)
		if i == 0 && (cost.roundTrips != 2 || cost.total() != 2 || cost.calls["Touch"] != 1 || cost.calls[w.method] != 1) {
			t.Errorf("a request calling %s that takes the session over cost %v; want Touch and %s, one round trip each", w.method, cost, w.method)
		}
		if i > 0 && (cost.roundTrips != 1 || cost.total() != 1 || cost.calls[w.method] != 1) {
			t.Errorf("a request calling %s after the take-over cost %v; want %s alone, in one round trip", w.method, cost, w.method)
		}
	}

	// DELETE costs its End alone (which checks the session and its
	// principal), here on an instance that does not hold the session.
	e := newCountedInstance(t, prefix, -1)
	cost = e.cost(t, func() {
		if status := e.send(t, http.MethodDelete, sid, ""); status != http.StatusNoContent {
			t.Errorf("DELETE answered HTTP %d; want 204", status)
		}
	})
	t.Logf("DELETE: %v", cost)
	if cost.roundTrips != 1 || cost.total() != 1 || cost.calls["End"] != 1 {
		t.Errorf("DELETE cost %v; want End alone, in one round trip", cost)
	}

	// A write to a session ended elsewhere finds it ended: 404, in that one
	// round trip, and the instance drops its copy.
	cost = a.cost(t, func() {
		if status := a.send(t, http.MethodPost, sid, writes[0].body); status != http.StatusNotFound {
			t.Errorf("logging/setLevel of a session deleted on another instance answered HTTP %d; want 404", status)
		}
	})
	t.Logf("SetLevel of a deleted session: %v", cost)
	if cost.roundTrips != 1 || cost.total() != 1 || cost.calls["SetLevel"] != 1 {
		t.Errorf("logging/setLevel of a deleted session cost %v; want SetLevel alone, in one round trip", cost)
	}
	if status := a.send(t, http.MethodPost, sid, writes[1].body); status != http.StatusNotFound {
		t.Errorf("resources/subscribe after that answered HTTP %d; want 404", status)
	}
}

// countedInstance is a Handler on a Redis session store whose calls and
// round trips are counted.
type countedInstance struct {
	url   string
	plain *redis.SessionStore // the same store, uncounted, for checks
	calls *callCounter
	trips *roundTripCounter
}

// newCountedInstance serves a small server (a tool, a resource) over
// loopback HTTP with a Handler sharing sessions on prefix, with the idle
// timeout idle. With a negative one, idle sessions are kept and no expiry
// sweep runs: nothing but requests calls the store.
func newCountedInstance(t *testing.T, prefix string, idle time.Duration) *countedInstance {
	t.Helper()
	client := newClient(t)
	trips := &roundTripCounter{}
	client.AddHook(trips)
	st, err := redis.New(client, redis.WithPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	// A new connection starts with commands of its own (HELLO, CLIENT
	// SETINFO): open it before anything counts.
	if err := client.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	calls := &callCounter{n: map[string]int{}}
	srv := server.New(mcp.Implementation{Name: "cost", Version: "1"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *server.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	srv.AddResource(&mcp.Resource{URI: "cost://readme", Name: "readme"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "hi"}}}, nil
		})
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Sessions: countedSessions{st.Sessions(), calls}, SessionIdleTimeout: idle})
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		hs.Close()
	})
	return &countedInstance{url: hs.URL, plain: st.Sessions(), calls: calls, trips: trips}
}

// initialize starts a legacy session and returns its ID.
func (in *countedInstance) initialize(t *testing.T) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, in.url, strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cost","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp := do(t, req)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize answered HTTP %d with session %q; want 200 and a session", resp.StatusCode, sid)
	}
	return sid
}

// post sends one JSON-RPC message of the session and reads the answer;
// it fails the test unless the instance accepted it.
func (in *countedInstance) post(t *testing.T, sid, body string) {
	t.Helper()
	if status := in.send(t, http.MethodPost, sid, body); status != http.StatusOK && status != http.StatusAccepted {
		t.Fatalf("POST %s answered HTTP %d", body, status)
	}
}

// send sends one request of the session and returns its status once the
// whole answer has been read.
func (in *countedInstance) send(t *testing.T, method, sid, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, in.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", sid)
	return do(t, req).StatusCode
}

// do sends req as a legacy client does and reads the whole answer.
func do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// requestCost is what one request cost the session store.
type requestCost struct {
	calls      map[string]int // session store calls by method
	roundTrips int            // commands sent to Redis
}

func (c requestCost) total() int {
	n := 0
	for _, v := range c.calls {
		n += v
	}
	return n
}

// cost returns what send cost this instance's store.
func (in *countedInstance) cost(t *testing.T, send func()) requestCost {
	t.Helper()
	calls, trips := in.calls.snapshot(), in.trips.count()
	send()
	after := in.calls.snapshot()
	for m, n := range calls {
		after[m] -= n
		if after[m] == 0 {
			delete(after, m)
		}
	}
	return requestCost{calls: after, roundTrips: in.trips.count() - trips}
}

// callCounter counts calls by method name.
type callCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *callCounter) add(method string) {
	c.mu.Lock()
	c.n[method]++
	c.mu.Unlock()
}

func (c *callCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[string]int, len(c.n))
	for k, v := range c.n {
		m[k] = v
	}
	return m
}

// countedSessions is the real session store, its calls counted.
type countedSessions struct {
	sessions.Store
	calls *callCounter
}

func (s countedSessions) Create(ctx context.Context, rec *sessions.Record) error {
	s.calls.add("Create")
	return s.Store.Create(ctx, rec)
}

func (s countedSessions) Get(ctx context.Context, id string) (*sessions.Record, error) {
	s.calls.add("Get")
	return s.Store.Get(ctx, id)
}

func (s countedSessions) Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*sessions.Record, error) {
	s.calls.add("Touch")
	return s.Store.Touch(ctx, id, now, every)
}

func (s countedSessions) SetLevel(ctx context.Context, id, level string, now time.Time) (*sessions.Record, error) {
	s.calls.add("SetLevel")
	return s.Store.SetLevel(ctx, id, level, now)
}

func (s countedSessions) Subscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	s.calls.add("Subscribe")
	return s.Store.Subscribe(ctx, id, uri, now)
}

func (s countedSessions) Unsubscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	s.calls.add("Unsubscribe")
	return s.Store.Unsubscribe(ctx, id, uri, now)
}

func (s countedSessions) End(ctx context.Context, id, principal string) error {
	s.calls.add("End")
	return s.Store.End(ctx, id, principal)
}

func (s countedSessions) Expire(ctx context.Context, idleBefore time.Time, limit int) ([]string, error) {
	s.calls.add("Expire")
	return s.Store.Expire(ctx, idleBefore, limit)
}

func (s countedSessions) StateKey(ctx context.Context) ([]byte, error) {
	s.calls.add("StateKey")
	return s.Store.StateKey(ctx)
}

// roundTripCounter is a go-redis hook counting the round trips of a
// client: each command, and each pipeline as one.
type roundTripCounter struct {
	mu sync.Mutex
	n  int
}

func (c *roundTripCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *roundTripCounter) add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *roundTripCounter) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (c *roundTripCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		c.add()
		return next(ctx, cmd)
	}
}

func (c *roundTripCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.add()
		return next(ctx, cmds)
	}
}
