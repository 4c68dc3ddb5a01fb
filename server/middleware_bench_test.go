package server

import (
	"context"
	stdjson "encoding/json"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// BenchmarkToolsCallMiddleware is BenchmarkToolsCall with one middleware
// that passes every request on, reading what an observer reads: the cost
// of having middleware at all (without any, BenchmarkToolsCall).
func BenchmarkToolsCallMiddleware(b *testing.B) {
	var tools int
	observe := func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (Result, error) {
			if r.ToolName() != "" && r.SessionID() != "-" && r.ProtocolVersion() != "" {
				tools++
			}
			return next(ctx, r)
		}
	}
	s := New(mcp.Implementation{Name: "bench", Version: "1"}, &Options{Middleware: []Middleware{observe}})
	AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes."}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Text}, nil
	})
	for _, era := range []struct{ name, version string }{{"legacy", mcp.Version20251125}, {"modern", mcp.Version20260728}} {
		b.Run(era.name, func(b *testing.B) {
			c := open(b, s, era.version, `{}`, nil)
			params := stdjson.RawMessage(c.withMeta(`{"name":"echo","arguments":{"text":"hello, world"}}`, ""))
			ctx := context.Background()
			var res stdjson.RawMessage
			b.ReportAllocs()
			for b.Loop() {
				if err := c.conn.Call(ctx, "tools/call", params, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	if tools == 0 {
		b.Fatal("the middleware saw no tools/call")
	}
}
