// Package servertest connects a weft client to a weft server in one call,
// for tests: over an in-memory pipe, or over Streamable HTTP on a loopback
// listener. Both ends close when the test ends.
package servertest

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// Timeout bounds connecting and, at the end of the test, closing: generous,
// since it only matters when something is broken.
const Timeout = time.Minute

// clientInfo is how the test client introduces itself.
func clientInfo() mcp.Implementation { return mcp.Implementation{Name: "servertest", Version: "1.0.0"} }

// Connect serves a new connection of s over an in-memory pipe
// (transport.Pipe, which encodes and decodes every message) and connects a
// client with opts (nil: the defaults, which discover the newest version
// both speak; set opts.ProtocolVersion to test another). It returns the
// client's session and the server's; the test fails at once if they cannot
// connect, and both close when it ends.
func Connect(tb testing.TB, s *server.Server, opts *client.Options) (*client.Session, *server.Session) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	clientEnd, serverEnd := transport.Pipe()
	ss, err := s.Connect(context.Background(), serverEnd, nil)
	if err != nil {
		tb.Fatalf("servertest: the server did not take the connection: %v", err)
	}
	tb.Cleanup(func() { ss.Close() })
	cs, err := client.New(clientInfo(), opts).Connect(ctx, clientEnd)
	if err != nil {
		tb.Fatalf("servertest: the client did not connect over a pipe: %v", err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs, ss
}

// ConnectHTTP serves s over Streamable HTTP (streamable.NewHandler with
// hopts, which may be nil) on a loopback listener and connects a client
// with opts, as Connect does. It returns the client's session and the
// endpoint's URL, for tests that also speak raw HTTP to it; the test fails
// at once if the client cannot connect, and the client, the handler and
// the listener close when it ends.
func ConnectHTTP(tb testing.TB, s *server.Server, opts *client.Options, hopts *streamable.HandlerOptions) (*client.Session, string) {
	tb.Helper()
	h := streamable.NewHandler(s, hopts)
	hs := httptest.NewServer(h)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), Timeout)
		defer cancel()
		h.Shutdown(ctx)
		hs.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cs, err := client.New(clientInfo(), opts).Connect(ctx, streamable.NewClient(hs.URL, nil))
	if err != nil {
		tb.Fatalf("servertest: the client did not connect over Streamable HTTP at %s: %v", hs.URL, err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs, hs.URL
}
