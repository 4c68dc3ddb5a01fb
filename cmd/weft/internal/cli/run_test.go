package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/cmd/weft/internal/console"
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

// samplingServer serves a server whose tool "ask" asks the client's model
// the question q (sampling), with a system prompt, and returns its reply.
func samplingServer(t *testing.T) string {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "sampler", Version: "1"}, nil)
	type askIn struct {
		Q string `json:"q"`
	}
	server.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *server.Request, in askIn) (string, error) {
		res, err := req.Sample(ctx, &mcp.CreateMessageParams{
			SystemPrompt: "Answer in one word.",
			Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: in.Q}}}},
			MaxTokens:    20,
		})
		if err != nil {
			return "", err
		}
		return "the model said: " + console.SamplingText(res.Content), nil
	})
	return serveHTTP(t, srv)
}

// TestSampleTyped has a person at the terminal answer a sampling request:
// they see the system prompt and the message, and type the reply.
func TestSampleTyped(t *testing.T) {
	r := runWeft(t, "Paris\n", true, "call", samplingServer(t), "ask", "q=Capital of France?")
	if r.code != 0 || r.stdout != "the model said: Paris\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and the typed reply", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"system: Answer in one word.", "user: Capital of France?", "Reply (one line"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the request was not shown: stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	r = runWeft(t, "\n", true, "call", samplingServer(t), "ask", "q=Capital of France?")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "User rejected sampling request") {
		t.Errorf("declining: exit %d, stdout %q, stderr %q; want a failure saying the user rejected it", r.code, r.stdout, r.stderr)
	}
}

// TestSampleCommand answers a sampling request with --sample-command: the
// command gets the request as JSON on stdin and prints the reply.
func TestSampleCommand(t *testing.T) {
	req := filepath.Join(t.TempDir(), "request.json")
	r := runWeft(t, "", false, "call", samplingServer(t), "ask", "q=Capital of France?", "--sample-command", "cat > "+req+"; echo Paris")
	if r.code != 0 || r.stdout != "the model said: Paris\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0 and the command's reply", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(req)
	if err != nil {
		t.Fatalf("the command did not get the request: %v", err)
	}
	var p mcp.CreateMessageParams
	if err := json.Unmarshal(b, &p); err != nil || p.SystemPrompt != "Answer in one word." || console.SamplingText(p.Messages[0].Content) != "Capital of France?" {
		t.Errorf("the command got %s (%v), want the request with its system prompt and message", b, err)
	}

	// A JSON result is taken as it is.
	r = runWeft(t, "", false, "call", samplingServer(t), "ask", "q=?", "--sample-command",
		`echo '{"role":"assistant","content":{"type":"text","text":"Lyon"},"model":"local"}'`)
	if r.code != 0 || r.stdout != "the model said: Lyon\n" {
		t.Errorf("a JSON reply: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// With no one to answer, sampling is not offered, and the error says
	// how to answer it.
	r = runWeft(t, "", false, "call", samplingServer(t), "ask", "q=?")
	if !strings.Contains(r.stdout+r.stderr, "--sample-command") {
		t.Errorf("unanswerable sampling: exit %d, stdout %q, stderr %q; want a hint at --sample-command", r.code, r.stdout, r.stderr)
	}
}
