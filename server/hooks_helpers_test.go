package server_test

import (
	"context"
	stdjson "encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// The hooks (middleware, session hooks, custom methods, visibility) are
// tested over real transports: an in-memory pipe and Streamable HTTP on a
// loopback listener, with a weft client.

// hookWait bounds every wait of these tests: generous, since it only
// matters when something is broken.
const hookWait = time.Minute

// hookTransports are the transports the hook tests run over.
var hookTransports = []string{"pipe", "http"}

// hookEras are a legacy and the modern protocol version.
var hookEras = []string{mcp.Version20251125, mcp.Version20260728}

// quiet discards a server's diagnostics.
var quiet = slog.New(slog.DiscardHandler)

// forTransportsAndEras runs fn in a subtest per transport and version.
func forTransportsAndEras(t *testing.T, versions []string, fn func(t *testing.T, tr, version string)) {
	for _, tr := range hookTransports {
		for _, v := range versions {
			t.Run(tr+"/"+v, func(t *testing.T) { fn(t, tr, v) })
		}
	}
}

// dialOver connects a client speaking version (with opts, which may be
// nil) to s over the transport tr.
func dialOver(t *testing.T, tr string, s *server.Server, version string, opts *client.Options) *client.Session {
	t.Helper()
	var o client.Options
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = version
	if o.Logger == nil {
		o.Logger = quiet
	}
	if tr == "http" {
		cs, _ := servertest.ConnectHTTP(t, s, &o, &streamable.HandlerOptions{Logger: quiet})
		return cs
	}
	cs, _ := servertest.Connect(t, s, &o)
	return cs
}

// await receives from ch until a value satisfies ok, failing the test
// after hookWait with what it awaited and what it saw.
func await[T any](t *testing.T, ch <-chan T, what string, ok func(T) bool) T {
	t.Helper()
	var backlog []T
	return awaitFrom(t, ch, &backlog, what, ok)
}

// awaitFrom is await for values that may have arrived already: it takes
// the first in *backlog that satisfies ok, else receives until one does,
// keeping the others in *backlog for later waits.
func awaitFrom[T any](t *testing.T, ch <-chan T, backlog *[]T, what string, ok func(T) bool) T {
	t.Helper()
	for i, v := range *backlog {
		if ok(v) {
			*backlog = append((*backlog)[:i], (*backlog)[i+1:]...)
			return v
		}
	}
	timeout := time.After(hookWait)
	for {
		select {
		case v := <-ch:
			if ok(v) {
				return v
			}
			*backlog = append(*backlog, v)
		case <-timeout:
			t.Fatalf("waited %v for %s; saw %+v", hookWait, what, *backlog)
		}
	}
}

// testCtx returns a context that ends with the test, bounded by hookWait.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hookWait)
	t.Cleanup(cancel)
	return ctx
}

// echoArgs and echoReply are the arguments and result of the echo tool.
type echoArgs struct {
	Text string `json:"text"`
}

type echoReply struct {
	Echo string `json:"echo"`
}

// addEcho registers the echo tool on s.
func addEcho(s *server.Server) {
	server.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes."}, func(_ context.Context, _ *server.Request, in echoArgs) (echoReply, error) {
		return echoReply{Echo: in.Text}, nil
	})
}

// stdRaw is a raw JSON result, as client middleware passes it on.
type stdRaw = stdjson.RawMessage

// pipeAs serves a connection of s over a pipe for principal and returns
// the client's end of it, and the server's session.
func pipeAs(t *testing.T, s *server.Server, principal string) (jsonrpc.Stream, *server.Session) {
	t.Helper()
	clientEnd, serverEnd := transport.Pipe()
	ss, err := s.Connect(context.Background(), serverEnd, &server.ConnectOptions{Principal: principal})
	if err != nil {
		t.Fatal(err)
	}
	return clientEnd, ss
}
