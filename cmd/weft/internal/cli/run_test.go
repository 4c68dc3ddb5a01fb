package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weftmcp/weft/cmd/weft/internal/example"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/streamable"
)

// result is what one run of the command line printed, and its exit code.
type result struct {
	stdout, stderr string
	code           int
}

// runWeft runs the weft command line in this process with args, as a
// person at a terminal would (output for people), typing stdin; questions
// are asked when interactive.
func runWeft(t *testing.T, stdin string, interactive bool, args ...string) result {
	t.Helper()
	var stdout, stderr strings.Builder
	e := &env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, terminal: true, interactive: interactive}
	root := newRoot(e)
	root.SetArgs(args)
	err := root.ExecuteContext(t.Context())
	if err != nil {
		stderr.WriteString("weft: " + err.Error() + "\n")
	}
	return result{stdout.String(), stderr.String(), exitCode(err)}
}

// serveHTTP serves srv over Streamable HTTP on loopback for the test and
// returns its endpoint's URL.
func serveHTTP(t *testing.T, srv *server.Server) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable.NewHandler(srv, nil))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// TestNoResources checks that a server without resources is said to have
// none, rather than shown as a table with only its header.
func TestNoResources(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "bare", Version: "1"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "noop"}, func(context.Context, *server.Request, struct{}) (string, error) { return "", nil })
	r := runWeft(t, "", false, "resources", serveHTTP(t, srv))
	if r.code != 0 || r.stdout != "no resources\n" {
		t.Errorf("weft resources on a server with none: exit %d, stdout %q, stderr %q; want 0 and \"no resources\"", r.code, r.stdout, r.stderr)
	}
}

// exampleServer serves weft's example server, its tasks in memory, over
// Streamable HTTP on loopback, and returns its URL.
func exampleServer(t *testing.T) string {
	t.Helper()
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return serveHTTP(t, example.New(&server.Options{Tasks: rt}))
}

// TestConfirmAskedOnce answers the example server's yes/no question at a
// terminal: it is asked once, and "n" means no.
func TestConfirmAskedOnce(t *testing.T) {
	r := runWeft(t, "n\n", true, "call", exampleServer(t), "confirm", "question=Ship it?")
	if r.code != 0 || r.stdout != "the user answered no to \"Ship it?\"\n" {
		t.Errorf("answering n: exit %d, stdout %q, stderr %q; want 0 and the answer no", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "Answer"); n != 1 {
		t.Errorf("the question was asked %d times, want once:\n%s", n, r.stderr)
	}
}
