package proxy

import (
	"context"
	"log/slog"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
)

// chain is a wrapped weft server, a Proxy in front of it, and a client of
// the proxy, all on pipes.
type chain struct {
	wrapped *server.Server
	proxy   *Proxy
	client  *client.Session
}

// newChain starts wrapped, connects a Proxy to it, and a legacy client
// with opts to the proxy; everything ends with the test.
func newChain(t *testing.T, ctx context.Context, wrapped *server.Server, opts client.Options) *chain {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	wrappedEnd, proxyEnd := transport.Pipe()
	ws, err := wrapped.Connect(ctx, proxyEnd, nil)
	if err != nil {
		t.Fatalf("connecting the wrapped server: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	p := connectProxy(t, ctx, wrappedEnd)
	clientEnd, serverEnd := transport.Pipe()
	ps, err := p.Server().Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatalf("serving the proxy: %v", err)
	}
	t.Cleanup(func() { ps.Close() })
	opts.Logger = quiet
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = mcp.LatestLegacyVersion
	}
	cs, err := client.New(mcp.Implementation{Name: "downstream", Version: "1"}, &opts).Connect(ctx, clientEnd)
	if err != nil {
		t.Fatalf("connecting to the proxy: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return &chain{wrapped: wrapped, proxy: p, client: cs}
}

// echoTool registers a tool named name on s that answers its name.
func echoTool(s *server.Server, name string) {
	server.AddTool(s, &mcp.Tool{Name: name}, func(context.Context, *server.Request, struct{}) (string, error) { return name, nil })
}

// connectProxy connects a Proxy, with a memory task runtime and no
// logging, to the wrapped server at the other end of stream; both close
// when the test ends.
func connectProxy(t *testing.T, ctx context.Context, stream jsonrpc.Stream) *Proxy {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithLogger(quiet))
	if err != nil {
		t.Fatalf("tasks.New: %v", err)
	}
	t.Cleanup(func() { rt.Close(context.WithoutCancel(ctx)) })
	p, err := Connect(ctx, stream, &server.Options{Logger: quiet, Tasks: rt})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}
