package e2e

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
	"github.com/weftmcp/weft/transport/websocket"
)

// testTimeout bounds every wait of these tests.
const testTimeout = 20 * time.Second

// The protocol versions under test.
var (
	legacyVersions = []string{mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125}
	allVersions    = append(append([]string{}, legacyVersions...), mcp.Version20260728)
)

// The transports under test: an in-memory pipe to an in-process server,
// the stdio transport to a server subprocess (this test binary), and a
// WebSocket to the Streamable HTTP endpoint on a loopback listener.
var transports = []string{"pipe", "stdio", "ws"}

// env is one cell of the test matrix.
type env struct {
	transport string
	version   string
}

// taskTransports are the transports the task tests run over: the task
// surfaces are also checked over Streamable HTTP on a loopback listener.
var taskTransports = []string{"pipe", "stdio", "http", "ws"}

// forEach runs fn in a subtest for every transport and every version in
// versions.
func forEach(t *testing.T, versions []string, fn func(t *testing.T, e env)) {
	t.Helper()
	forEachOn(t, transports, versions, fn)
}

// forEachOn runs fn in a subtest for every transport in trs and every
// version in versions.
func forEachOn(t *testing.T, trs, versions []string, fn func(t *testing.T, e env)) {
	t.Helper()
	for _, tr := range trs {
		for _, v := range versions {
			t.Run(tr+"/"+v, func(t *testing.T) { fn(t, env{transport: tr, version: v}) })
		}
	}
}

// dial starts a fixture server on the transport and returns the client's
// end of the connection. The server stops when the test ends.
func dial(t testing.TB, kind string) jsonrpc.Stream {
	t.Helper()
	switch kind {
	case "pipe":
		f := newFixture()
		t.Cleanup(func() { f.close(t) })
		return f.dial(t, nil)
	case "http":
		return streamable.NewClient(serveHTTP(t)+"/mcp", nil)
	case "ws":
		stream, err := websocket.Dial(ctxFor(t), serveHTTP(t)+"/mcp", nil)
		if err != nil {
			t.Fatalf("dialing the WebSocket endpoint: %v", err)
		}
		return stream
	case "stdio":
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		// A race-enabled binary sleeps a second at exit unless told not to.
		cmd.Env = append(os.Environ(), stdioServerEnv+"=1", "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
		stderr := &lockedBuffer{}
		stream, err := transport.NewCommand(cmd, transport.WithStderr(stderr))
		if err != nil {
			t.Fatalf("starting the stdio server: %v", err)
		}
		t.Cleanup(func() {
			stream.Close()
			if t.Failed() && stderr.Len() > 0 {
				t.Logf("stdio server stderr:\n%s", stderr)
			}
		})
		return stream
	}
	t.Fatalf("unknown transport %q", kind)
	return nil
}

// serveHTTP serves a fixture server over Streamable HTTP on a loopback
// listener until the test ends, and returns its URL.
func serveHTTP(t testing.TB) string {
	t.Helper()
	f := newFixture()
	h := streamable.NewHandler(f.srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Shutdown(context.Background())
		f.close(t)
	})
	return ts.URL
}

// connect dials a fixture server and connects a client at the env's version
// through a tap. opts may be nil.
func (e env) connect(t testing.TB, opts *client.Options) (*client.Session, *tap) {
	t.Helper()
	tp := newTap(dial(t, e.transport))
	var o client.Options
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = e.version
	s, err := client.New(clientInfo, &o).Connect(ctxFor(t), tp)
	if err != nil {
		t.Fatalf("Connect at %s over %s: %v", e.version, e.transport, err)
	}
	t.Cleanup(func() { s.Close() })
	if s.ProtocolVersion() != e.version {
		t.Fatalf("negotiated %s, want %s", s.ProtocolVersion(), e.version)
	}
	return s, tp
}

// clientInfo is how the test client introduces itself.
var clientInfo = mcp.Implementation{Name: "weft-e2e-client", Version: "1.0.0"}

// ctxFor returns a context that ends with the test or after testTimeout.
func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// callTool calls a tool with raw JSON arguments and fails the test on a
// protocol error.
func callTool(t testing.TB, s *client.Session, name, args string, opts ...client.CallOption) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: name}
	if args != "" {
		p.Arguments = stdjson.RawMessage(args)
	}
	res, err := s.CallTool(ctxFor(t), p, opts...)
	if err != nil {
		t.Fatalf("tools/call %s %s: %v", name, args, err)
	}
	return res
}

// text returns the text of a result's single text block.
func text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d content blocks, want 1: %+v", len(res.Content), res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("result content is %T, want text", res.Content[0])
	}
	return tc.Text
}

// outText returns the "text" member of a fixture tool's textOut result.
func outText(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool failed: %s", text(t, res))
	}
	var out textOut
	if err := json.Unmarshal([]byte(text(t, res)), &out); err != nil {
		t.Fatalf("tool result %q: %v", text(t, res), err)
	}
	return out.Text
}

// lockedBuffer is a bytes.Buffer safe for a process's stderr copier and the
// test reading it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
