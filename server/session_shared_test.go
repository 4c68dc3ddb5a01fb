package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/streamable"
)

// Instances of a cluster stand here as Servers and Handlers of one
// process sharing a session store and a task store, each on its own
// loopback HTTP server; the drivers' own modules run the same against
// SQLite, Redis and PostgreSQL.

// countingStore is a real session store that counts the calls made to it
// (each one is a round trip to a shared store).
type countingStore struct {
	sessions.Store
	calls atomic.Int64
}

func (c *countingStore) Create(ctx context.Context, rec *sessions.Record) error {
	c.calls.Add(1)
	return c.Store.Create(ctx, rec)
}

func (c *countingStore) Get(ctx context.Context, id string) (*sessions.Record, error) {
	c.calls.Add(1)
	return c.Store.Get(ctx, id)
}

func (c *countingStore) Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*sessions.Record, error) {
	c.calls.Add(1)
	return c.Store.Touch(ctx, id, now, every)
}

func (c *countingStore) SetLevel(ctx context.Context, id, level string, now time.Time) (*sessions.Record, error) {
	c.calls.Add(1)
	return c.Store.SetLevel(ctx, id, level, now)
}

func (c *countingStore) Subscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	c.calls.Add(1)
	return c.Store.Subscribe(ctx, id, uri, now)
}

func (c *countingStore) Unsubscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	c.calls.Add(1)
	return c.Store.Unsubscribe(ctx, id, uri, now)
}

func (c *countingStore) End(ctx context.Context, id, principal string) error {
	c.calls.Add(1)
	return c.Store.End(ctx, id, principal)
}

// instance is one server of a test cluster.
type instance struct {
	srv *Server
	url string
	h   *streamable.Handler
	hs  *httptest.Server
	rt  *tasks.Runtime
	// gate holds the hold and stubborn tools of this instance.
	gate *gate
}

// stop shuts the instance down as a restart would.
func (in *instance) stop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	in.h.Shutdown(ctx)
	in.hs.Close()
	in.rt.Close(ctx)
}

// startInstance serves a task server on the shared stores.
func startInstance(t *testing.T, ss sessions.Store, ts tasks.Store, bus tasks.Bus) *instance {
	t.Helper()
	return startInstanceWith(t, &streamable.HandlerOptions{Sessions: ss}, ts, bus)
}

// startInstanceWith serves a task server on the shared stores, with the
// Handler options given (Logger is set here).
func startInstanceWith(t *testing.T, opts *streamable.HandlerOptions, ts tasks.Store, bus tasks.Bus) *instance {
	t.Helper()
	rt := newRuntimeOn(t, ts, bus)
	g := newGate()
	s := taskServer(t, rt, g, nil)
	AddTool(s, &mcp.Tool{Name: "shout", Description: "Logs, then answers."},
		func(ctx context.Context, r *Request, _ struct{}) (string, error) {
			if err := r.Log(ctx, mcp.LevelInfo, "shout", "loud"); err != nil {
				return "", err
			}
			return "shouted", nil
		}, optional)
	s.AddResource(&mcp.Resource{URI: "test://static", Name: "static"}, staticText("static text"))
	o := *opts
	o.Logger = quietLogger
	h := streamable.NewHandler(s, &o)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := httptest.NewServer(mux)
	in := &instance{srv: s, url: hs.URL + "/mcp", h: h, hs: hs, rt: rt, gate: g}
	t.Cleanup(func() { in.stop(t) })
	return in
}

// deleteSession ends the session of hdr with a DELETE to url, which must
// answer 204.
func deleteSession(t *testing.T, url string, hdr map[string]string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE on %s: %v %v, want 204", url, resp, err)
	}
	resp.Body.Close()
}

// initializeOn starts a 2025-11-25 session on url and returns its headers.
func initializeOn(t *testing.T, url string) map[string]string {
	t.Helper()
	init := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	nextMessage(t, messages(t, init))
	sid := init.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize answered %s without a session", init.Status)
	}
	return map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": mcp.Version20251125}
}

func TestSharedSessions_AnyInstanceServesTheSession(t *testing.T) {
	store := &countingStore{Store: sessions.NewMemoryStore()}
	ts, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	a, b, c := startInstance(t, store, ts, bus), startInstance(t, store, ts, bus), startInstance(t, store, ts, bus)

	hdr := initializeOn(t, a.url)
	if r := post(t, b.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized on another instance: %s, want 202", r.Status)
	}
	// The level set through one instance governs the logs of a call on another.
	if msg := nextMessage(t, messages(t, post(t, c.url, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`, hdr))); member(t, msg, "result") != "{}" {
		t.Fatalf("logging/setLevel on a third instance: %s", msg)
	}
	before := store.calls.Load()
	call := messages(t, post(t, b.url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shout","arguments":{}}}`, hdr))
	if log := nextMessage(t, call); member(t, log, "method") != `"notifications/message"` || member(t, log, "params", "data") != `"loud"` {
		t.Fatalf("a tools/call on an instance other than the one that set the level sent %s, want the log message", log)
	}
	if res := nextMessage(t, call); !strings.Contains(string(res), "shouted") {
		t.Fatalf("tools/call answered %s", res)
	}
	if n := store.calls.Load() - before; n != 1 {
		t.Fatalf("a tools/call of a known session made %d calls to the session store, want 1", n)
	}

	// A request that writes the session costs its write alone: the write
	// checks the session.
	before = store.calls.Load()
	if msg := nextMessage(t, messages(t, post(t, c.url, `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"debug"}}`, hdr))); member(t, msg, "result") != "{}" {
		t.Fatalf("logging/setLevel again: %s", msg)
	}
	if n := store.calls.Load() - before; n != 1 {
		t.Fatalf("a logging/setLevel of a session held here made %d calls to the session store, want 1", n)
	}

	// DELETE on one instance ends the session on all of them, in one call.
	before = store.calls.Load()
	deleteSession(t, c.url, hdr)
	if n := store.calls.Load() - before; n != 1 {
		t.Fatalf("DELETE made %d calls to the session store, want 1", n)
	}
	for _, in := range []*instance{a, b, c} {
		if r := post(t, in.url, `{"jsonrpc":"2.0","id":4,"method":"ping"}`, hdr); r.StatusCode != http.StatusNotFound {
			t.Fatalf("ping of a deleted session: %s, want 404", r.Status)
		}
	}
}

func TestSharedSessions_AnotherPrincipalGetsNotFound(t *testing.T) {
	ts, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	store := sessions.NewMemoryStore()
	a, b := startInstance(t, store, ts, bus), startInstance(t, store, ts, bus)
	hdr := initializeOn(t, a.url)
	rec, err := store.Get(context.Background(), hdr["Mcp-Session-Id"])
	if err != nil || rec.Version != mcp.Version20251125 || !strings.Contains(string(rec.Capabilities), "elicitation") {
		t.Fatalf("the stored session: %+v, %v", rec, err)
	}
	// The store says someone else started it: nobody else reaches it.
	forged := rec.Clone()
	forged.ID, forged.Principal = "forged", "alice"
	if err := store.Create(context.Background(), forged); err != nil {
		t.Fatal(err)
	}
	other := map[string]string{"Mcp-Session-Id": "forged", "MCP-Protocol-Version": mcp.Version20251125}
	if r := post(t, b.url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, other); r.StatusCode != http.StatusNotFound {
		t.Fatalf("a session of another principal: %s, want 404", r.Status)
	}
}

func TestSharedSessions_ALegacyTaskIsReadableAfterARestart(t *testing.T) {
	store := sessions.NewMemoryStore()
	ts, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	a := startInstance(t, store, ts, bus)
	hdr := initializeOn(t, a.url)
	created := nextMessage(t, messages(t, post(t, a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout","arguments":{},"task":{}}}`, hdr)))
	id := strings.Trim(member(t, created, "result", "task", "taskId"), `"`)
	if id == "" {
		t.Fatalf("tools/call as a task answered %s", created)
	}
	awaitStatus(t, a.rt, hdr["Mcp-Session-Id"], id, tasks.StatusCompleted)
	a.stop(t)

	restarted := startInstance(t, store, ts, bus)
	got := nextMessage(t, messages(t, post(t, restarted.url, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+id+`"}}`, hdr)))
	if member(t, got, "result", "status") != `"completed"` {
		t.Fatalf("tasks/get after a restart: %s, want the completed task", got)
	}
	res := nextMessage(t, messages(t, post(t, restarted.url, `{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"`+id+`"}}`, hdr)))
	if !strings.Contains(string(res), "shouted") {
		t.Fatalf("tasks/result after a restart: %s, want the tool's result", res)
	}
}

// A subscription made through one instance is kept in the store, and the
// instance holding the client's GET stream notifies it.
func TestSharedSessions_ASubscriptionMadeElsewhereIsNotified(t *testing.T) {
	store := sessions.NewMemoryStore()
	ts, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	a, b := startInstance(t, store, ts, bus), startInstance(t, store, ts, bus)
	hdr := initializeOn(t, a.url)
	post(t, a.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	if msg := nextMessage(t, messages(t, post(t, b.url, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://static"}}`, hdr))); member(t, msg, "result") != "{}" {
		t.Fatalf("resources/subscribe on B: %s", msg)
	}
	if rec, err := store.Get(context.Background(), hdr["Mcp-Session-Id"]); err != nil || len(rec.Subscriptions) != 1 || rec.Subscriptions[0] != "test://static" {
		t.Fatalf("the stored session after subscribing: %+v, %v", rec, err)
	}
	req, _ := http.NewRequest(http.MethodGet, a.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	get, err := http.DefaultClient.Do(req)
	if err != nil || get.StatusCode != http.StatusOK {
		t.Fatalf("GET on A: %v %v", get, err)
	}
	defer get.Body.Close()
	stream := messages(t, get)
	if err := a.srv.ResourceUpdated(context.Background(), "test://static"); err != nil {
		t.Fatal(err)
	}
	if msg := nextMessage(t, stream); member(t, msg, "method") != `"notifications/resources/updated"` || member(t, msg, "params", "uri") != `"test://static"` {
		t.Fatalf("A's GET stream carried %s, want resources/updated for the subscription made on B", msg)
	}
}
