package websocket_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/websocket"
)

// testTimeout bounds every wait of these tests.
const testTimeout = 60 * time.Second

// ctxFor returns a context that ends with the test or after testTimeout.
func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

type whoamiOut struct {
	Principal string `json:"principal"`
}

// newServer returns a server with two tools: whoami, which reports the
// request's principal, and secret, which the auth tests guard by scope.
func newServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "ws-test", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "whoami", Description: "Reports who is asking"},
		func(ctx context.Context, r *server.Request, _ struct{}) (whoamiOut, error) {
			return whoamiOut{Principal: r.Principal()}, nil
		})
	server.AddTool(s, &mcp.Tool{Name: "secret", Description: "Needs the admin scope"},
		func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
			return "the secret", nil
		})
	return s
}

// serve serves h on a loopback listener until the test ends and returns
// the ws:// URL of its /mcp endpoint.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	if sh, ok := h.(interface{ Shutdown(context.Context) error }); ok {
		t.Cleanup(func() { sh.Shutdown(context.Background()) })
	}
	return "ws" + ts.URL[len("http"):] + "/mcp"
}

// connect dials url and starts a client session over the connection.
func connect(t *testing.T, url string, opts *websocket.DialOptions) *client.Session {
	t.Helper()
	stream, err := websocket.Dial(ctxFor(t), url, opts)
	if err != nil {
		t.Fatalf("Dial %s: %v", url, err)
	}
	s, err := client.New(mcp.Implementation{Name: "ws-test-client", Version: "1.0.0"}, nil).Connect(ctxFor(t), stream)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// callText calls a tool without arguments and returns its text.
func callText(t *testing.T, s *client.Session, tool string) (string, error) {
	t.Helper()
	res, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: tool})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: %+v", tool, res)
	}
	return res.Content[0].(*mcp.TextContent).Text, nil
}
