package streamable_test

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/streamable"
)

// BenchmarkToolsCallRoutedSessions is BenchmarkToolsCallSharedSessions
// with the session's messages routed between instances (Messages and
// Bus): a call that sends the client nothing but its response touches
// neither.
func BenchmarkToolsCallRoutedSessions(b *testing.B) {
	opts := streamable.HandlerOptions{Sessions: sessions.NewMemoryStore(), Messages: sessions.NewMemoryMessageLog(), Bus: tasks.NewMemoryBus()}
	url := serveHTTP(b, newHandlerWith(b, newServer(), opts))
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
