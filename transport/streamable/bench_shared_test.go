package streamable_test

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/transport/streamable"
)

// BenchmarkToolsCallSharedSessions is the legacy row of BenchmarkToolsCall
// with the session kept in a shared store (the memory driver, so what it
// measures is the Handler's side of the one Touch per request).
func BenchmarkToolsCallSharedSessions(b *testing.B) {
	url := serveHTTP(b, newHandlerWith(b, newServer(), streamable.HandlerOptions{Sessions: sessions.NewMemoryStore()}))
	s := connect(b, streamable.NewClient(url, nil), mcp.Version20251125)
	params := &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"name":"bench"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.CallTool(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}
