package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/streamable"
)

// B.10: over Streamable HTTP the client sends Mcp-Method and
// Mcp-Name: <taskId> with tasks/get, tasks/update and tasks/cancel (the
// server rejects a missing or mismatched one with -32020); the transport
// takes the name from params.taskId.
func TestTasksRequestsCarryMcpNameOverHTTP(t *testing.T) {
	f := newFixture()
	t.Cleanup(func() { f.close(t) })
	h := streamable.NewHandler(f.srv, nil)
	var mu sync.Mutex
	var posts []http.Header
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			posts = append(posts, r.Header.Clone())
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		h.Shutdown(context.Background())
	})
	a := &answerer{}
	opts := a.options()
	opts.ProtocolVersion = mcp.Version20260728
	s, err := client.New(clientInfo, opts).Connect(ctxFor(t), streamable.NewClient(ts.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	task := startTask(t, s, "task_ask", "")
	res, err := task.Wait(ctxFor(t))
	if err != nil || outText(t, res) != `"octocat" / 4` {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	if err := task.Cancel(ctxFor(t)); err != nil {
		t.Fatalf("Cancel of the finished task = %v, want the extension's acknowledgement", err)
	}
	mu.Lock()
	defer mu.Unlock()
	seen := map[string]int{}
	for _, hd := range posts {
		method := hd.Get("Mcp-Method")
		if method != mcp.MethodTasksGet && method != mcp.MethodTasksUpdate && method != mcp.MethodTasksCancel {
			continue
		}
		seen[method]++
		if name := hd.Get("Mcp-Name"); name != task.ID() {
			t.Errorf("%s carried Mcp-Name %q, want the task ID %q", method, name, task.ID())
		}
	}
	if seen[mcp.MethodTasksGet] == 0 || seen[mcp.MethodTasksUpdate] != 2 || seen[mcp.MethodTasksCancel] != 1 {
		t.Errorf("tasks requests over HTTP: %v, want tasks/get, two tasks/update and one tasks/cancel", seen)
	}
}
