package postgres_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/taskstore/postgres"
	"github.com/weftmcp/weft/transport/streamable"
)

// TestRequestOfKnownSessionCostsOneRoundTrip counts, on the wire, the
// round trips a legacy session's requests make to PostgreSQL (issue 17:
// at most one for a request of a known session). Each instance reaches
// the database through a loopback proxy that counts the Sync messages its
// client sends: pgx ends every statement of the extended protocol with
// one, and waits for the answer, so each is a round trip. The pool has
// one connection, warmed so that every statement is already prepared on
// it (preparing costs a round trip the first time only).
func TestRequestOfKnownSessionCostsOneRoundTrip(t *testing.T) {
	schema := freshSchema(t)
	a := newPGInstance(t, schema)
	b := newPGInstance(t, schema)
	setLevel := `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"debug"}}`
	subscribe := `{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"cost://readme"}}`
	unsubscribe := `{"jsonrpc":"2.0","id":7,"method":"resources/unsubscribe","params":{"uri":"cost://readme"}}`
	ping := `{"jsonrpc":"2.0","id":8,"method":"ping"}`

	// Every statement each instance uses, prepared on its one connection.
	warm := a.initialize(t)
	for _, in := range []*pgInstance{a, b} {
		for _, body := range []string{ping, setLevel, subscribe, unsubscribe} {
			in.want(t, http.MethodPost, warm, body, http.StatusOK)
		}
	}
	b.want(t, http.MethodDelete, warm, "", http.StatusNoContent)

	sid := a.initialize(t)
	for _, step := range []struct {
		what   string
		in     *pgInstance
		method string
		body   string
		status int
		trips  int64
	}{
		{"ping on a, which holds it", a, http.MethodPost, ping, http.StatusOK, 1},
		{"logging/setLevel on a", a, http.MethodPost, setLevel, http.StatusOK, 1},
		{"resources/subscribe on a", a, http.MethodPost, subscribe, http.StatusOK, 1},
		{"resources/unsubscribe on a", a, http.MethodPost, unsubscribe, http.StatusOK, 1},
		// Taking the session over reads it first: once per instance.
		{"logging/setLevel on b, which takes it over", b, http.MethodPost, setLevel, http.StatusOK, 2},
		{"resources/subscribe on b", b, http.MethodPost, subscribe, http.StatusOK, 1},
		{"ping on b", b, http.MethodPost, ping, http.StatusOK, 1},
		{"DELETE on b", b, http.MethodDelete, "", http.StatusNoContent, 1},
		// a still holds a copy: its write finds the session ended.
		{"logging/setLevel on a after the DELETE", a, http.MethodPost, setLevel, http.StatusNotFound, 1},
	} {
		before := step.in.trips.syncs.Load()
		step.in.want(t, step.method, sid, step.body, step.status)
		n := step.in.trips.syncs.Load() - before
		t.Logf("%s: %d round trips", step.what, n)
		if n != step.trips {
			t.Errorf("%s made %d round trips to PostgreSQL; want %d", step.what, n, step.trips)
		}
	}
}

// pgInstance is a Handler whose session store reaches PostgreSQL through
// a counting proxy.
type pgInstance struct {
	url   string
	trips *syncCounter
}

// newPGInstance serves a small server (a resource to subscribe to) over
// loopback HTTP, its legacy sessions in schema; idle sessions are kept, so
// nothing but requests calls the store.
func newPGInstance(t *testing.T, schema string) *pgInstance {
	t.Helper()
	u, err := url.Parse(connString())
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		t.Skipf("the round-trip count needs a postgres:// URL to put its proxy in, not %q", connString())
	}
	trips := &syncCounter{}
	u.Host = trips.proxy(t, u.Host)
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	st, err := postgres.Open(context.Background(), u.String(), postgres.WithSchema(schema))
	if err != nil {
		t.Fatalf("Open through the proxy: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	srv := server.New(mcp.Implementation{Name: "cost", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "cost://readme", Name: "readme"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "hi"}}}, nil
		})
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Sessions: st.Sessions(), SessionIdleTimeout: -1})
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		hs.Close()
	})
	return &pgInstance{url: hs.URL, trips: trips}
}

// initialize starts a legacy session and returns its ID.
func (in *pgInstance) initialize(t *testing.T) string {
	t.Helper()
	resp := in.send(t, http.MethodPost, "",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cost","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize answered HTTP %d with session %q; want 200 and a session", resp.StatusCode, sid)
	}
	return sid
}

// want sends one request of the session and fails the test unless it is
// answered with status.
func (in *pgInstance) want(t *testing.T, method, sid, body string, status int) {
	t.Helper()
	if got := in.send(t, method, sid, body).StatusCode; got != status {
		t.Fatalf("%s %s answered HTTP %d; want %d", method, body, got, status)
	}
}

// send sends one request, as a legacy client does, and reads the whole
// answer.
func (in *pgInstance) send(t *testing.T, method, sid, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, in.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
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

// syncCounter is a loopback TCP proxy to PostgreSQL that counts the Sync
// messages its clients send.
type syncCounter struct {
	syncs atomic.Int64
}

// proxy starts the proxy to target and returns its address; it stops when
// the test ends.
func (c *syncCounter) proxy(t *testing.T, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, conn := range conns {
			conn.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			db, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, client, db)
			mu.Unlock()
			wg.Go(func() { io.Copy(client, db); client.Close() })
			wg.Go(func() { c.forward(db, client); db.Close() })
		}
	})
	return ln.Addr().String()
}

// forward copies what a client sends to the database, message by
// message, counting the Sync messages ('S'). The first message, the
// startup, has no type byte.
func (c *syncCounter) forward(db io.Writer, client io.Reader) {
	var head [5]byte
	if _, err := io.ReadFull(client, head[:4]); err != nil {
		return
	}
	n := binary.BigEndian.Uint32(head[:4])
	if _, err := db.Write(head[:4]); err != nil {
		return
	}
	if _, err := io.CopyN(db, client, int64(n)-4); err != nil {
		return
	}
	for {
		if _, err := io.ReadFull(client, head[:]); err != nil {
			return
		}
		if head[0] == 'S' {
			c.syncs.Add(1)
		}
		if _, err := db.Write(head[:]); err != nil {
			return
		}
		if _, err := io.CopyN(db, client, int64(binary.BigEndian.Uint32(head[1:]))-4); err != nil && !errors.Is(err, io.EOF) {
			return
		}
	}
}
