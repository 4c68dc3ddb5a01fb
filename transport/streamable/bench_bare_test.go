package streamable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
)

// BenchmarkPlainCallVsBare measures a plain tools/call of a legacy session
// over Streamable HTTP on loopback, on weft and on a bare handler that does
// only what the protocol needs (decode with encoding/json, a session map,
// encode), with the same raw net/http client posting the same bodies, at 1
// and 32 calls in flight. Besides ns/op and allocs/op (client included, the
// same on both sides) it reports cpu-ns/op, the process's user and system
// CPU per call (getrusage), which a loaded machine inflates less than wall
// time. The ratio weft/bare of either figure understates the servers' own
// ratio, since the client's share is the same on both sides.
func BenchmarkPlainCallVsBare(b *testing.B) {
	for _, inFlight := range []int{1, 32} {
		for _, side := range []struct {
			name    string
			handler func(testing.TB) http.Handler
		}{
			{"bare", func(testing.TB) http.Handler { return newBareHandler() }},
			{"weft", func(tb testing.TB) http.Handler { return newEchoHandler(tb) }},
		} {
			b.Run(fmt.Sprintf("inflight=%d/%s", inFlight, side.name), func(b *testing.B) {
				benchPlainCalls(b, side.handler(b), inFlight)
			})
		}
	}
}

// newEchoHandler returns a weft Streamable HTTP handler whose server has
// one typed echo tool, as the bench harness's weft server does.
func newEchoHandler(tb testing.TB) http.Handler {
	s := server.New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns the text it is given."},
		func(_ context.Context, _ *server.Request, in bareEchoArgs) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: in.Text}}}, nil
		})
	return newHandlerWith(tb, s, streamable.HandlerOptions{MaxSessionsPerClient: -1})
}

// benchPlainCalls opens one legacy session on h and posts tools/call
// requests to it from inFlight goroutines.
func benchPlainCalls(b *testing.B, h http.Handler, inFlight int) {
	ts := httptest.NewServer(h)
	defer ts.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: inFlight, MaxConnsPerHost: inFlight}}
	defer client.CloseIdleConnections()
	url := ts.URL + "/mcp"
	sid := bareInitialize(b, client, url)

	var next atomic.Int64
	call := func(buf *bytes.Buffer) {
		id := next.Add(1)
		buf.Reset()
		buf.WriteString(`{"jsonrpc":"2.0","id":`)
		buf.WriteString(strconv.FormatInt(id, 10))
		buf.WriteString(`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`)
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(buf.Bytes()))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"hello, world"`)) {
			b.Errorf("tools/call: %d %s %v", resp.StatusCode, body, err)
		}
	}

	b.ReportAllocs()
	cpu := processCPU()
	b.ResetTimer()
	var wg sync.WaitGroup
	var quota atomic.Int64
	quota.Store(int64(b.N))
	for range inFlight {
		wg.Go(func() {
			var buf bytes.Buffer
			for quota.Add(-1) >= 0 {
				call(&buf)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
}

// bareInitialize starts a legacy session and returns its ID.
func bareInitialize(b *testing.B, client *http.Client, url string) string {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		b.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	req, _ = http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
	if resp, err = client.Do(req); err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return sid
}

// bareHandler is the floor the benchmark compares weft with: legacy
// sessions over Streamable HTTP reduced to what a conforming answer to
// these requests needs, the way a hand-written server would do it.
type bareHandler struct {
	mu       sync.RWMutex
	sessions map[string]bool
	nextID   atomic.Int64
}

func newBareHandler() *bareHandler { return &bareHandler{sessions: make(map[string]bool)} }

// bareMessage is an incoming JSON-RPC request or notification.
type bareMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// bareCallParams are the params of tools/call.
type bareCallParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// bareEchoArgs is the echo tool's input.
type bareEchoArgs struct {
	Text string `json:"text"`
}

// bareResponse is an outgoing JSON-RPC response.
type bareResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *bareError      `json:"error,omitempty"`
}

// bareError is a JSON-RPC error object.
type bareError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// bareCallResult is the answer to a tools/call.
type bareCallResult struct {
	Content [1]bareText `json:"content"`
}

// bareText is a text content block.
type bareText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ServeHTTP answers initialize, notifications and tools/call of echo.
func (h *bareHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var m bareMessage
	if err := json.Unmarshal(data, &m); err != nil || m.JSONRPC != "2.0" || m.Method == "" {
		h.write(w, http.StatusBadRequest, &bareResponse{ID: json.RawMessage("null"), Error: &bareError{-32600, "not a JSON-RPC request"}})
		return
	}
	if m.Method == "initialize" {
		sid := strconv.FormatInt(h.nextID.Add(1), 10)
		h.mu.Lock()
		h.sessions[sid] = true
		h.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", sid)
		h.write(w, http.StatusOK, &bareResponse{ID: m.ID, Result: map[string]any{
			"protocolVersion": mcp.Version20251125, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]string{"name": "bare", "version": "1"},
		}})
		return
	}
	h.mu.RLock()
	ok := h.sessions[r.Header.Get("Mcp-Session-Id")]
	h.mu.RUnlock()
	if !ok {
		h.write(w, http.StatusNotFound, &bareResponse{ID: m.ID, Error: &bareError{-32600, "no such session"}})
		return
	}
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var p bareCallParams
	var args bareEchoArgs
	if m.Method != "tools/call" || json.Unmarshal(m.Params, &p) != nil || p.Name != "echo" || json.Unmarshal(p.Arguments, &args) != nil {
		h.write(w, http.StatusOK, &bareResponse{ID: m.ID, Error: &bareError{-32602, "only tools/call of echo is served"}})
		return
	}
	h.write(w, http.StatusOK, &bareResponse{ID: m.ID, Result: bareCallResult{Content: [1]bareText{{"text", args.Text}}}})
}

// write sends resp as a JSON body.
func (h *bareHandler) write(w http.ResponseWriter, status int, resp *bareResponse) {
	resp.JSONRPC = "2.0"
	data, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}
