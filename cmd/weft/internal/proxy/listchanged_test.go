package proxy

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// A modern wrapped server (weft's own, say) announces list changes only
// on a subscriptions/listen stream: the proxy must open one, or a tool
// the wrapped server adds later is never offered. (It opened none, so the
// proxy kept offering the tools of the moment it connected.)
func TestModernWrappedServersToolListChangeReachesTheClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wrapped := server.New(mcp.Implementation{Name: "modern", Version: "1"}, &server.Options{Logger: slog.New(slog.DiscardHandler)})
	echoTool(wrapped, "first")
	changed := make(chan struct{}, 1)
	c := newChain(t, ctx, wrapped, client.Options{OnToolsListChanged: func(context.Context, *mcp.ToolListChangedNotificationParams) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	if !c.proxy.Wrapped().IsModern() {
		t.Fatalf("the proxy speaks %s with weft's server; this test needs the modern era", c.proxy.Wrapped().ProtocolVersion())
	}
	echoTool(wrapped, "late")
	for {
		var names []string
		for tool, err := range c.client.Tools(ctx) {
			if err != nil {
				t.Fatalf("listing the proxy's tools: %v", err)
			}
			names = append(names, tool.Name)
		}
		if slices.Contains(names, "late") {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the proxy never offered the tool the wrapped server added: it offers %v", names)
		}
	}
}
