package e2e

import (
	stdjson "encoding/json"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

// BenchmarkToolsCall measures one tools/call round trip, client to server
// and back, over each transport in each era.
func BenchmarkToolsCall(b *testing.B) {
	for _, tr := range transports {
		for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
			b.Run(tr+"/"+v, func(b *testing.B) {
				s, err := client.New(clientInfo, &client.Options{ProtocolVersion: v}).Connect(ctxFor(b), dial(b, tr))
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				ctx := ctxFor(b)
				params := &mcp.CallToolParams{Name: "add", Arguments: stdjson.RawMessage(`{"a":1,"b":2}`)}
				b.ReportAllocs()
				for b.Loop() {
					res, err := s.CallTool(ctx, params)
					if err != nil || res.IsError {
						b.Fatalf("tools/call: %+v, %v", res, err)
					}
				}
			})
		}
	}
}
