package streamable_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/streamable"
)

// idleSessionBudget is the most heap an idle legacy session may hold on a
// serving process. The bench's target is 2 KiB of RSS; here it measures
// 1420–1450 B (it was 1900 B): the server's Session (448 B), its
// jsonrpc.Conn (416 B) and the Conn's context (96 B), the transport's
// session (240 B), the table entries and the session ID.
const idleSessionBudget = 1664

// idleSessionObjects is the most heap objects an idle legacy session may
// hold: it holds 9 (it held 15), those above and three method values the
// Conn keeps (AllowBatch, OnCallAbandoned, OnDone). Not checked under the
// race detector, where small strings are objects of their own.
const idleSessionObjects = 10

// An idle legacy session holds no goroutine and at most idleSessionBudget
// bytes of heap: after initialize and notifications/initialized, nothing
// of the session waits on anything.
func TestIdleLegacySessionsHoldNoGoroutineAndLittleHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("opens hundreds of sessions")
	}
	// Every session comes from this one client.
	url := serveHTTP(t, newHandlerWith(t, newServer(), streamable.HandlerOptions{MaxSessionsPerClient: -1}))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	t.Cleanup(client.CloseIdleConnections)
	post := func(sid, body string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: HTTP %d", body, resp.StatusCode)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	open := func() {
		sid := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"idle","version":"1"}}}`)
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	open() // warm up: pools, the HTTP connection, the server's first-use caches
	const n = 500
	settle := func() (mem runtime.MemStats, goroutines int) {
		// Handler goroutines of the last requests end, and the connection's
		// reader parks; then a collection leaves only what is held.
		deadline := time.Now().Add(10 * time.Second)
		prev := -1
		for g := runtime.NumGoroutine(); g != prev && time.Now().Before(deadline); g = runtime.NumGoroutine() {
			prev = g
			time.Sleep(20 * time.Millisecond)
		}
		// Two collections: the first moves what sync.Pools hold (a cache
		// per P, so more with -cpu 4) to their victim caches, the second
		// frees it, so pooled buffers do not count as held by sessions.
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m, runtime.NumGoroutine()
	}
	before, goroutinesBefore := settle()
	for range n {
		open()
	}
	after, goroutinesAfter := settle()
	if extra := goroutinesAfter - goroutinesBefore; extra > n/100 {
		t.Errorf("%d idle sessions hold %d goroutines; want none", n, extra)
	}
	perSession := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
	objects := (float64(after.HeapObjects) - float64(before.HeapObjects)) / n
	t.Logf("%.0f B of heap in %.2f objects per idle legacy session", perSession, objects)
	if perSession > idleSessionBudget {
		t.Errorf("an idle legacy session holds %.0f B of heap; the budget is %d B", perSession, idleSessionBudget)
	}
	if objects > idleSessionObjects && !raceEnabled {
		t.Errorf("an idle legacy session holds %.2f heap objects; the budget is %d", objects, idleSessionObjects)
	}
}
