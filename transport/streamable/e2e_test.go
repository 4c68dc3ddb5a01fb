package streamable_test

import (
	"context"
	stdjson "encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
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

type greetIn struct {
	Name string `json:"name"`
}

// newServer returns an MCP server with a "greet" tool that reports
// progress before it answers, and an "echo" tool that just answers.
func newServer() *server.Server {
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
	return s
}

// serveHTTP mounts h on a loopback listener and returns its URL.
func serveHTTP(t testing.TB, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// newHandler returns a Streamable HTTP handler for srv that tells clients
// to resume a closed stream after 10ms, shut down when the test ends.
func newHandler(t testing.TB, srv *server.Server) *streamable.Handler {
	return newHandlerWith(t, srv, streamable.HandlerOptions{})
}

// newHandlerWith is newHandler with further options.
func newHandlerWith(t testing.TB, srv *server.Server, opts streamable.HandlerOptions) *streamable.Handler {
	opts.RetryInterval = 10 * time.Millisecond
	h := streamable.NewHandler(srv, &opts)
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

func TestEndToEndAToolClosesItsOwnSSEStream(t *testing.T) {
	s := newServer()
	released := make(chan bool, 1)
	server.AddTool(s, &mcp.Tool{Name: "poll", Description: "closes its SSE stream, then answers"},
		func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
			closed := req.CloseSSEStream()
			released <- closed
			if err := req.Progress(ctx, 1, 0, "after the stream closed"); err != nil {
				return "", err
			}
			return "answered after the close", nil
		}, server.ClosesSSEStream())
	url := serveHTTP(t, newHandler(t, s))
	session := connect(t, streamable.NewClient(url, &streamable.ClientOptions{}), mcp.Version20251125)
	var progress []string
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "poll", Arguments: []byte(`{}`)},
		client.WithProgress(func(p *mcp.ProgressNotificationParams) { progress = append(progress, p.Message) }))
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	if !<-released {
		t.Error("CloseSSEStream found no stream to close")
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != "answered after the close" {
		t.Errorf("poll answered %+v", res.Content)
	}
	if len(progress) != 1 {
		t.Errorf("progress %q, want the one sent after the close, on the resumed stream", progress)
	}

	// A modern request has no resumable stream to close.
	modern := connect(t, streamable.NewClient(url, nil), "")
	if _, err := modern.CallTool(context.Background(), &mcp.CallToolParams{Name: "poll", Arguments: []byte(`{}`)}); err != nil {
		t.Fatalf("modern poll: %v", err)
	}
	if <-released {
		t.Error("CloseSSEStream of a modern request reported a stream closed")
	}
}

func TestEndToEndParamHeadersAreCheckedAgainstTheServersTools(t *testing.T) {
	s := newServer()
	s.AddRawTool(&mcp.Tool{Name: "deploy", InputSchema: []byte(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "deployed"}}}, nil
		})
	url := serveHTTP(t, newHandler(t, s))
	call := func(region string) *http.Response {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"` + mcp.MetaProtocolVersion + `":"2026-07-28","` +
			mcp.MetaClientCapabilities + `":{}},"name":"deploy","arguments":{"region":"eu-west1"}}}`
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": mcp.Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": "deploy"} {
			req.Header.Set(k, v)
		}
		if region != "" {
			req.Header.Set("Mcp-Param-Region", region)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := call("eu-west1"); r.StatusCode != http.StatusOK {
		t.Errorf("a call mirroring its region: %s", r.Status)
	}
	for _, region := range []string{"", "us-east1"} {
		if r := call(region); r.StatusCode != http.StatusBadRequest {
			t.Errorf("a call with Mcp-Param-Region %q: %s, want 400 (-32020)", region, r.Status)
		}
	}
}
