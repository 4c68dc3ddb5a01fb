package streamable_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/sse"
	"github.com/weftmcp/weft/transport/streamable"
)

// httpServer adapts *server.Server to streamable.Server and sse.Server.
type httpServer struct{ *server.Server }

func (a httpServer) ConnectStream(ctx context.Context, stream jsonrpc.Stream) error {
	opts := &server.ConnectOptions{}
	if s, ok := stream.(interface{ SessionID() string }); ok {
		opts.SessionID = s.SessionID()
	}
	_, err := a.Connect(ctx, stream, opts)
	return err
}

func (a httpServer) ServeStandalone(ctx context.Context, req *jsonrpc.Request, header http.Header,
	notify func(context.Context, *jsonrpc.Request) error) *jsonrpc.Response {
	return a.ServeRequest(ctx, req, server.RequestInfo{Version: header.Get("Mcp-Protocol-Version")}, notify)
}

type greetIn struct {
	Name string `json:"name"`
}

// newServer returns an MCP server with a "greet" tool that reports
// progress before it answers, and an "echo" tool that just answers.
func newServer() httpServer {
	s := server.New(mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes the name"},
		func(ctx context.Context, req *server.Request, in greetIn) (string, error) { return in.Name, nil })
	server.AddTool(s, &mcp.Tool{Name: "greet", Description: "says hello"},
		func(ctx context.Context, req *server.Request, in greetIn) (string, error) {
			if err := req.Progress(ctx, 1, 2, "halfway"); err != nil {
				return "", err
			}
			return "hello, " + in.Name, nil
		})
	return httpServer{s}
}

// serveHTTP mounts h on a loopback listener and returns its URL.
func serveHTTP(t testing.TB, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// newHandler returns a Streamable HTTP handler for srv, shut down when the
// test ends.
func newHandler(t testing.TB, srv httpServer) *streamable.Handler {
	h := streamable.NewHandler(srv, nil)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
	})
	return h
}

// connect opens a client session at version v ("" discovers it) over stream.
func connect(t testing.TB, stream jsonrpc.Stream, v string) *client.Session {
	t.Helper()
	c := client.New(mcp.Implementation{Name: "e2e-client", Version: "1"}, &client.Options{ProtocolVersion: v})
	s, err := c.Connect(context.Background(), stream)
	if err != nil {
		t.Fatalf("connecting at %q: %v", v, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// greet calls the greet tool and checks the answer and its progress.
func greet(t testing.TB, s *client.Session, name string) {
	t.Helper()
	var progress []float64
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: []byte(`{"name":"` + name + `"}`)},
		client.WithProgress(func(p *mcp.ProgressNotificationParams) { progress = append(progress, p.Progress) }))
	if err != nil {
		t.Fatalf("greet over %s: %v", s.ProtocolVersion(), err)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok || text.Text != "hello, "+name {
		t.Fatalf("greet over %s answered %+v", s.ProtocolVersion(), res.Content)
	}
	if len(progress) != 1 || progress[0] != 1 {
		t.Fatalf("greet over %s reported progress %v, want [1]", s.ProtocolVersion(), progress)
	}
}

func TestEndToEndModern(t *testing.T) {
	url := serveHTTP(t, newHandler(t, newServer()))
	s := connect(t, streamable.NewClient(url, nil), "")
	if !s.IsModern() || s.ProtocolVersion() != mcp.Version20260728 {
		t.Fatalf("discovered %q (modern %v), want 2026-07-28", s.ProtocolVersion(), s.IsModern())
	}
	greet(t, s, "modern")
}

func TestEndToEndLegacy(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(v, func(t *testing.T) {
			url := serveHTTP(t, newHandler(t, newServer()))
			tr := streamable.NewClient(url, nil)
			s := connect(t, tr, v)
			if s.ProtocolVersion() != v || tr.SessionID() == "" {
				t.Fatalf("negotiated %q with session %q", s.ProtocolVersion(), tr.SessionID())
			}
			greet(t, s, "legacy")
		})
	}
}

func TestEndToEndBothErasOnOneHandler(t *testing.T) {
	url := serveHTTP(t, newHandler(t, newServer()))
	legacy := connect(t, streamable.NewClient(url, nil), mcp.Version20251125)
	modern := connect(t, streamable.NewClient(url, nil), "")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		for _, s := range []*client.Session{legacy, modern} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				greet(t, s, "both")
			}()
		}
	}
	wg.Wait()
	if legacy.IsModern() || !modern.IsModern() {
		t.Fatalf("eras: legacy session modern=%v, modern session modern=%v", legacy.IsModern(), modern.IsModern())
	}
}

func TestEndToEndLegacySSETransport(t *testing.T) {
	h := sse.NewHandler(newServer(), nil)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	url := serveHTTP(t, h)
	stream, err := sse.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := connect(t, stream, mcp.Version20241105)
	if s.ProtocolVersion() != mcp.Version20241105 {
		t.Fatalf("negotiated %q over HTTP+SSE", s.ProtocolVersion())
	}
	greet(t, s, "sse")
}
