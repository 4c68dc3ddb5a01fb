package server

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// BenchmarkResourceUpdated measures telling one subscribed legacy session
// over transport.Pipe that a resource changed, until its client has the
// notification: the one-process path, which a cluster must leave as it
// was (see cluster.go).
func BenchmarkResourceUpdated(b *testing.B) {
	s := New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
	s.AddResource(&mcp.Resource{URI: "test://bench", Name: "bench"}, staticText("bench"))
	c := open(b, s, mcp.Version20251125, `{}`, nil)
	c.mustCall(mcp.MethodResourcesSubscribe, `{"uri":"test://bench"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.ResourceUpdated(ctx, "test://bench"); err != nil {
			b.Fatal(err)
		}
		if n := <-c.notes; n.Method != mcp.NotificationResourcesUpdated {
			b.Fatalf("the client got %s, want %s", n.Method, mcp.NotificationResourcesUpdated)
		}
	}
}
