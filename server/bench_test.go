package server

import (
	"context"
	stdjson "encoding/json"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// BenchmarkToolsCall measures one tools/call round trip of a typed echo tool
// over transport.Pipe, client Conn included, in each era.
func BenchmarkToolsCall(b *testing.B) {
	s := New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
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
}
