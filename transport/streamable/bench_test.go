package streamable_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/streamable"
)

// BenchmarkToolsCall measures one tools/call round trip over HTTP on a
// loopback listener, from the client package's CallTool to the server's
// tool and back, in each era.
func BenchmarkToolsCall(b *testing.B) {
	for _, era := range []struct{ name, version string }{{"modern", ""}, {"legacy", mcp.Version20251125}} {
		b.Run(era.name, func(b *testing.B) {
			srv := newServer()
			url := serveHTTP(b, newHandler(b, srv))
			s := connect(b, streamable.NewClient(url, nil), era.version)
			params := &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"name":"bench"}`)}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIdleLegacySessionServerSide measures what one idle legacy
// session costs the serving process with the real server: heap and
// goroutine stacks, after initialize and notifications/initialized.
func BenchmarkIdleLegacySessionServerSide(b *testing.B) {
	// Every session comes from this one client.
	url := serveHTTP(b, newHandlerWith(b, newServer(), streamable.HandlerOptions{MaxSessions: -1, MaxSessionsPerClient: -1}))
	post := func(sid, body string) *http.Response {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()
	n := 0
	for b.Loop() {
		resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
		post(resp.Header.Get("Mcp-Session-Id"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		n++
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	used := (after.HeapAlloc + after.StackInuse) - (before.HeapAlloc + before.StackInuse)
	b.ReportMetric(float64(used)/float64(n), "B/session")
	b.ReportMetric(float64(after.StackInuse-before.StackInuse)/float64(n), "stackB/session")
	b.ReportMetric(float64(runtime.NumGoroutine()-goroutines)/float64(n), "goroutines/session")
}
