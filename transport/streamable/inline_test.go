package streamable_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// The tests below cover a legacy session's calls served on the goroutine
// of the POST that carried them (streamable.StreamClosers): what a handler
// does with its peer still works there.

func TestACallServedOnItsPostAsksTheClientAndGetsTheAnswer(t *testing.T) {
	s := newServer()
	server.AddTool(s, &mcp.Tool{Name: "ask", Description: "asks the user for a name"},
		func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "your name?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
			if err != nil {
				return "", err
			}
			return "hello, " + string(res.Content["name"]), nil
		})
	if s.MayCloseStream(mcp.MethodToolsCall, "ask") {
		t.Fatal("the server would hand a call of ask to a goroutine of its own: this test would not cover serving on the POST")
	}
	url := serveHTTP(t, newHandler(t, s))
	c := client.New(mcp.Implementation{Name: "e2e-client", Version: "1"}, &client.Options{
		ProtocolVersion: mcp.Version20251125,
		ElicitForm: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"name": []byte(`"Ada"`)}}, nil
		},
	})
	session, err := c.Connect(context.Background(), streamable.NewClient(url, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != `hello, "Ada"` {
		t.Errorf("ask answered %+v", res.Content)
	}
}

func TestACallServedOnItsPostIsCancelledByTheClient(t *testing.T) {
	s := newServer()
	started, ended := make(chan struct{}), make(chan error, 1)
	server.AddTool(s, &mcp.Tool{Name: "wait", Description: "waits until cancelled"},
		func(ctx context.Context, _ *server.Request, _ struct{}) (string, error) {
			close(started)
			<-ctx.Done()
			ended <- context.Cause(ctx)
			return "", ctx.Err()
		})
	url := serveHTTP(t, newHandler(t, s))
	session := connect(t, streamable.NewClient(url, nil), mcp.Version20251125)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel() // the client sends notifications/cancelled in its own POST
	}()
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: []byte(`{}`)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v", err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the handler's context ended with %v, want context.Canceled (notifications/cancelled)", err)
	}
	// The session goes on serving.
	greet(t, session, "after the cancel")
}

func TestACallServedOnItsPostCannotCloseItsStream(t *testing.T) {
	s := newServer()
	closed := make(chan bool, 1)
	server.AddTool(s, &mcp.Tool{Name: "undeclared", Description: "tries to close its SSE stream without declaring it"},
		func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
			if err := req.Progress(ctx, 1, 0, "the response is an SSE stream now"); err != nil {
				return "", err
			}
			closed <- req.CloseSSEStream()
			return "answered on the open stream", nil
		})
	url := serveHTTP(t, newHandler(t, s))
	session := connect(t, streamable.NewClient(url, nil), mcp.Version20251125)
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "undeclared", Arguments: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if <-closed {
		t.Error("CloseSSEStream closed the stream of a call running on its POST's goroutine")
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != "answered on the open stream" {
		t.Errorf("undeclared answered %+v", res.Content)
	}
}

// oneAtATime serves each legacy session with one handler slot.
type oneAtATime struct{ *server.Server }

func (s oneAtATime) ConnectSession(ctx context.Context, stream jsonrpc.Stream, info transport.SessionInfo) error {
	_, err := s.Connect(ctx, stream, &server.ConnectOptions{SessionID: info.ID, Principal: info.Principal, MaxInFlight: 1})
	return err
}

func TestACallArrivingWhileTheSlotsAreFullRunsOnceOneFrees(t *testing.T) {
	s := newServer()
	entered, release := make(chan string, 2), make(chan struct{})
	server.AddTool(s, &mcp.Tool{Name: "hold", Description: "waits to be released"},
		func(ctx context.Context, _ *server.Request, in greetIn) (string, error) {
			select {
			case <-release:
				entered <- in.Name + " after the release"
			default:
				entered <- in.Name
			}
			<-release
			return in.Name, nil
		})
	h := streamable.NewHandler(oneAtATime{s}, nil)
	secondArrived := make(chan struct{})
	url := serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"second"`)) {
			close(secondArrived)
		}
		h.ServeHTTP(w, r)
	}))
	session := connect(t, streamable.NewClient(url, nil), mcp.Version20251125)
	answers := make(chan string, 2)
	call := func(name string) {
		res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold", Arguments: []byte(`{"name":"` + name + `"}`)})
		if err != nil {
			t.Error(err)
			answers <- ""
			return
		}
		answers <- res.Content[0].(*mcp.TextContent).Text
	}
	go call("first")
	if got := <-entered; got != "first" {
		t.Fatalf("%q entered first", got)
	}
	go call("second")
	<-secondArrived
	// The only slot is taken: the second call is queued, not run on its
	// POST's goroutine, and not answered.
	select {
	case got := <-entered:
		t.Fatalf("%q ran while the only handler slot was taken", got)
	case got := <-answers:
		t.Fatalf("a call was answered (%q) while both were held", got)
	default:
	}
	close(release)
	got := map[string]bool{<-answers: true, <-answers: true}
	if !got["first"] || !got["second"] {
		t.Errorf("answers %v, want first and second", got)
	}
	if second := <-entered; second != "second after the release" {
		t.Errorf("%q entered second; want the second call, once the first had left its slot", second)
	}
}
