package cli

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// TestMissingCapabilityHint calls a tool that runs only as a task without
// one, on a real server, and checks that the error the CLI prints names
// the capability and says to add --task.
func TestMissingCapabilityHint(t *testing.T) {
	ctx := t.Context()
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus())
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Tasks: rt})
	server.AddTool(srv, &mcp.Tool{Name: "long"}, func(context.Context, *server.Request, struct{}) (string, error) {
		return "done", nil
	}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportRequired}))
	cs, ss := transport.Pipe()
	go srv.Run(ctx, ss)
	s, err := client.New(clientInfo, nil).Connect(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "long"})
	if err == nil {
		t.Fatal("a task-only tool called without a task succeeded; the test needs it to fail with -32021")
	}
	msg := protocolError("calling long", err).Error()
	for _, want := range []string{"-32021", `"io.modelcontextprotocol/tasks"`, "add --task"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error %q does not contain %q", msg, want)
		}
	}
}

// TestConnectErrorHints checks the errors for a server that is not
// running and for an HTTP server with no MCP endpoint at the URL.
func TestConnectErrorHints(t *testing.T) {
	ctx := t.Context()
	e := &env{stderr: &strings.Builder{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stopped := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	_, err = connect(ctx, e, target{url: stopped}, client.Options{})
	if want := "no server answers at " + stopped + "; is it running?"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("connecting to a stopped server: %v, want %q", err, want)
	}

	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable.NewHandler(server.New(mcp.Implementation{Name: "s", Version: "1"}, nil), nil))
	hs := httptest.NewServer(mux)
	defer hs.Close()
	_, err = connect(ctx, e, target{url: hs.URL}, client.Options{})
	if want := "try " + hs.URL + "/mcp"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("connecting to a URL without /mcp: %v, want %q", err, want)
	}
	s, err := connect(ctx, e, target{url: hs.URL + "/mcp"}, client.Options{})
	if err != nil {
		t.Fatalf("connecting to the endpoint the hint names: %v", err)
	}
	s.Close()
}

// TestSchemeless checks the URLs written without a scheme that the CLI
// recognizes, and the arguments it must not mistake for one.
func TestSchemeless(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8080/mcp": "http://127.0.0.1:8080/mcp",
		"localhost:8080":     "http://localhost:8080",
	} {
		if got, ok := schemeless(in); !ok || got != want {
			t.Errorf("schemeless(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"echo", "text=a:1", "ftp://x:1", "a:b", "sleep"} {
		if got, ok := schemeless(in); ok {
			t.Errorf("schemeless(%q) = %q, want no URL", in, got)
		}
	}
}
