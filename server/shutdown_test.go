package server

import (
	"bufio"
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// How sessions end: the client closing its input, the server closing the
// session, and the context of Run ending.

// stdioPeer drives Server.Run over a real stdio stream on pipes, speaking
// raw JSON lines.
type stdioPeer struct {
	t     *testing.T
	in    io.Writer               // the server's stdin, when the test writes to it
	lines chan stdjson.RawMessage // the server's stdout, line by line
	ran   chan error              // Run's result
	meta  string                  // the _meta members of a modern request
	wait  chan error              // the cause with which each "wait" call's context ended
	began chan struct{}           // a token per "wait" call that started
	stop  context.CancelFunc      // ends Run's context
}

// runStdio runs s with in as its stdin and a piped stdout until the test
// ends. s gets a "wait" tool that waits until its context ends.
func runStdio(t *testing.T, s *Server, in io.Reader) *stdioPeer {
	t.Helper()
	p := &stdioPeer{t: t, lines: make(chan stdjson.RawMessage, 16), ran: make(chan error, 1),
		wait: make(chan error, 4), began: make(chan struct{}, 4),
		meta: fmt.Sprintf(`"_meta":{%q:%q,%q:{}}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities)}
	AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *Request, _ struct{}) (string, error) {
		p.began <- struct{}{}
		<-ctx.Done()
		p.wait <- context.Cause(ctx)
		return "", context.Cause(ctx)
	})
	outR, outW := io.Pipe()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			p.lines <- stdjson.RawMessage(sc.Text())
		}
		close(p.lines)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	go func() { p.ran <- s.Run(ctx, transport.NewStdio(in, outW)) }()
	t.Cleanup(func() {
		cancel()
		outR.Close()
	})
	return p
}

// send writes one modern request line.
func (p *stdioPeer) send(id int, method, params string) {
	p.t.Helper()
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s,%s}`+"\n", id, method, p.meta, strings.TrimPrefix(params, "{"))
	if _, err := io.WriteString(p.in, line); err != nil {
		p.t.Fatalf("writing to the server's stdin: %v", err)
	}
}

// next returns the next line the server wrote.
func (p *stdioPeer) next() stdjson.RawMessage {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed its stdout")
		}
		return l
	case <-time.After(waitFor):
		p.t.Fatal("the server wrote nothing")
		return nil
	}
}

// awaitRun waits for Run to return and returns its error.
func (p *stdioPeer) awaitRun() error {
	p.t.Helper()
	select {
	case err := <-p.ran:
		return err
	case <-time.After(waitFor):
		p.t.Fatal("Run did not return")
		return nil
	}
}

// wantClosingResult checks that line answers listen request id with the
// closing result of a subscriptions/listen stream.
func wantClosingResult(t *testing.T, line stdjson.RawMessage, id string) {
	t.Helper()
	if member(t, line, "id") != id || member(t, line, "result", "resultType") != `"complete"` ||
		member(t, line, "result", "_meta", mcp.MetaSubscriptionID) != id {
		t.Errorf("got %s, want the closing result of listen %s", line, id)
	}
}

func TestShutdown_EndOfInputEndsListensAndLongHandlers(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	t.Cleanup(func() { stdinW.Close() })
	p := runStdio(t, fullServer(t, nil), stdinR)
	p.in = stdinW
	p.send(1, mcp.MethodSubscriptionsListen, `{"notifications":{"toolsListChanged":true}}`)
	if ack := p.next(); member(t, ack, "method") != `"`+mcp.NotificationSubscriptionsAcknowledged+`"` {
		t.Fatalf("got %s, want the acknowledgement", ack)
	}
	p.send(2, mcp.MethodToolsCall, `{"name":"wait","arguments":{}}`)
	select {
	case <-p.began:
	case <-time.After(waitFor):
		t.Fatal("the tool did not start")
	}
	stdinW.Close() // as a stdio client shuts the server down
	select {
	case cause := <-p.wait:
		if !errors.Is(cause, ErrClientClosed) {
			t.Errorf("the running tool's context ended with %v, want ErrClientClosed", cause)
		}
	case <-time.After(waitFor):
		t.Fatal("the running tool's context did not end with the input")
	}
	answers := map[string]stdjson.RawMessage{}
	for range 2 {
		l := p.next()
		answers[member(t, l, "id")] = l
	}
	wantClosingResult(t, answers["1"], "1")
	if member(t, answers["2"], "result", "isError") != "true" {
		t.Errorf("the tool call was answered %s, want its (error) result", answers["2"])
	}
	if err := p.awaitRun(); err != nil {
		t.Errorf("Run returned %v after the end of input, want nil", err)
	}
}

// stuckInput yields its lines, then blocks like a terminal's stdin: neither
// a context nor Close interrupts it (it is no io.Closer) until the test ends.
type stuckInput struct {
	r       io.Reader
	release chan struct{}
}

func (s *stuckInput) Read(b []byte) (int, error) {
	if n, err := s.r.Read(b); err != io.EOF {
		return n, err
	}
	<-s.release
	return 0, io.EOF
}

func TestShutdown_RunReturnsWhenItsContextEndsThoughTheInputBlocks(t *testing.T) {
	meta := fmt.Sprintf(`"_meta":{%q:%q,%q:{}}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities)
	in := &stuckInput{r: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}` + "\n"),
		release: make(chan struct{})}
	t.Cleanup(func() { close(in.release) }) // the abandoned read ends with the test
	p := runStdio(t, fullServer(t, nil), in)
	if ack := p.next(); member(t, ack, "method") != `"`+mcp.NotificationSubscriptionsAcknowledged+`"` {
		t.Fatalf("got %s, want the acknowledgement", ack)
	}
	p.stop()
	wantClosingResult(t, p.next(), "1")
	if err := p.awaitRun(); !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v when its context ended, want context.Canceled", err)
	}
}

func TestShutdown_CloseAnswersOpenListensGracefully(t *testing.T) {
	s := fullServer(t, nil)
	c := open(t, s, mcp.Version20260728, `{}`, nil)
	result := make(chan stdjson.RawMessage, 1)
	go func() {
		res, err := c.call(mcp.MethodSubscriptionsListen, `{"notifications":{"toolsListChanged":true}}`)
		if err != nil {
			t.Errorf("the listen failed: %v", err)
		}
		result <- res
	}()
	ack := c.nextNote()
	subID := member(t, ack.Params, "_meta", mcp.MetaSubscriptionID)
	closed := make(chan error, 1)
	go func() { closed <- c.session.Close() }()
	select {
	case res := <-result:
		if member(t, res, "resultType") != `"complete"` || member(t, res, "_meta", mcp.MetaSubscriptionID) != subID {
			t.Errorf("the listen ended with %s, want its closing result for subscription %s", res, subID)
		}
	case <-time.After(waitFor):
		t.Fatal("the open listen got no closing result")
	}
	select {
	case <-closed:
	case <-time.After(waitFor):
		t.Fatal("Close did not return")
	}
}

func TestShutdown_HandlerContextsEndWithTheSessionOrTheirRequest(t *testing.T) {
	type key struct{}
	newSession := func() *Session {
		ss := &Session{}
		ss.handlers, ss.cancelHandler = context.WithCancelCause(context.Background())
		return ss
	}
	ended := func(ctx context.Context) bool {
		select {
		case <-ctx.Done():
			return true
		case <-time.After(waitFor):
			return false
		}
	}
	t.Run("the session ends, nobody waited", func(t *testing.T) {
		ss := newSession()
		ctx := ss.link(context.WithValue(context.Background(), key{}, "v"))
		if ctx.Err() != nil || context.Cause(ctx) != nil || ctx.Value(key{}) != "v" {
			t.Fatalf("a live handler context: err %v, cause %v, value %v", ctx.Err(), context.Cause(ctx), ctx.Value(key{}))
		}
		ss.endHandlers(ErrClientClosed)
		if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != ErrClientClosed || ctx.Value(key{}) != "v" || !ended(ctx) {
			t.Errorf("after the session ended: err %v, cause %v, value %v", ctx.Err(), context.Cause(ctx), ctx.Value(key{}))
		}
	})
	t.Run("the session ends while the handler waits", func(t *testing.T) {
		ss := newSession()
		ctx := ss.link(context.Background())
		child, cancel := context.WithCancel(ctx) // waits on ctx.Done
		defer cancel()
		ss.endHandlers(ErrSessionClosed)
		if !ended(child) || context.Cause(ctx) != ErrSessionClosed {
			t.Errorf("a derived context did not end with the session (cause %v)", context.Cause(ctx))
		}
	})
	t.Run("the request ends first", func(t *testing.T) {
		ss := newSession()
		conn, cancel := context.WithCancelCause(context.Background())
		ctx := ss.link(conn)
		stop := errors.New("cancelled by the client")
		cancel(stop)
		if !ended(ctx) || context.Cause(ctx) != stop {
			t.Errorf("cause %v, want the request's", context.Cause(ctx))
		}
		ss.endHandlers(ErrClientClosed)
		if context.Cause(ctx) != stop {
			t.Errorf("the session's end replaced the request's cause with %v", context.Cause(ctx))
		}
	})
	// Once the handler has returned, its context ends with the request's
	// alone: the tie to the session is undone there and then, whether the
	// handler waited on its context or something waits on it later.
	for _, waited := range []bool{true, false} {
		name := "the handler returned after waiting"
		if !waited {
			name = "something waits after the handler returned"
		}
		// In a bubble, so that synctest.Wait lets any AfterFunc of the
		// session's end run before the context is looked at.
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ss := newSession()
				conn, cancel := context.WithCancelCause(context.Background())
				hc := ss.link(conn)
				if waited {
					hc.Done()
				}
				hc.detach()
				done := hc.Done()
				ss.endHandlers(ErrClientClosed)
				synctest.Wait()
				select {
				case <-done:
					t.Fatalf("the session's end reached a returned handler's context (cause %v)", context.Cause(hc))
				default:
				}
				stop := errors.New("answered")
				cancel(stop)
				synctest.Wait()
				if hc.Err() == nil || context.Cause(hc) != stop {
					t.Errorf("cause %v, want the request's", context.Cause(hc))
				}
			})
		})
	}
}
