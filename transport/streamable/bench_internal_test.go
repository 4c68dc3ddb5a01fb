package streamable

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// streamServer is a Server that hands each session's stream to the
// benchmark, which plays the MCP server itself: no goroutine, no state.
type streamServer struct{ streams chan jsonrpc.Stream }

func (s streamServer) ConnectSession(_ context.Context, st jsonrpc.Stream, _ transport.SessionInfo) error {
	s.streams <- st
	return nil
}

func (streamServer) ServeRequest(_ context.Context, req *jsonrpc.Request, _ transport.RequestInfo, _ func(context.Context, *jsonrpc.Request) error) *jsonrpc.Response {
	return &jsonrpc.Response{ID: req.ID, Result: []byte(`{}`)}
}

// BenchmarkIdleLegacySession measures what the transport keeps for one
// idle legacy session: the session after an initialize answered over the
// HTTP path and a notifications/initialized, excluding the MCP server's
// own state (see BenchmarkIdleLegacySessionServerSide for the total).
func BenchmarkIdleLegacySession(b *testing.B) {
	srv := streamServer{streams: make(chan jsonrpc.Stream, 1)}
	h := NewHandler(srv, &HandlerOptions{MaxSessions: -1, MaxSessionsPerClient: -1, SessionIdleTimeout: -1})
	ctx := context.Background()
	post := func(sid, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			r.Header.Set("Mcp-Session-Id", sid)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		done := make(chan *httptest.ResponseRecorder)
		go func() {
			done <- post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
		}()
		st := <-srv.streams
		msg, err := st.Read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		st.Write(ctx, &jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID, Result: []byte(`{"protocolVersion":"2025-11-25"}`)})
		w := <-done
		sid := w.Header().Get("Mcp-Session-Id")
		if w.Code != http.StatusOK || sid == "" {
			b.Fatalf("initialize: %d %s", w.Code, w.Body)
		}
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if _, err := st.Read(ctx); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "B/session")
	if got := h.sessions.len(); got != n {
		b.Fatalf("%d sessions live, want %d", got, n)
	}
}
