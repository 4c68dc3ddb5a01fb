package jsonrpc_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// waitLimit bounds every wait in these tests; reaching it is a failure.
const waitLimit = 10 * time.Second

// quiet is a logger for connections whose logs a test does not inspect.
var quiet = slog.New(slog.DiscardHandler)

// pushing makes newConn run every Conn over a PushStream (see
// TestConnSuiteOverAPushStream). Tests that read it must not run in parallel.
var pushing bool

// newConn starts a Conn on stream and closes it when the test ends. While
// pushing is set, the stream's messages are pushed to the Conn by a
// pushedStream instead of read by the Conn.
func newConn(t *testing.T, stream jsonrpc.Stream, opts jsonrpc.ConnOptions) *jsonrpc.Conn {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	if pushing {
		stream = &pushedStream{Stream: stream}
	}
	c := jsonrpc.NewConn(stream, opts)
	t.Cleanup(func() {
		c.Close()
		waitDone(t, c)
	})
	return c
}

// connPair returns two Conns joined by an in-memory pipe.
func connPair(t *testing.T, a, b jsonrpc.ConnOptions) (*jsonrpc.Conn, *jsonrpc.Conn) {
	t.Helper()
	sa, sb := transport.Pipe()
	return newConn(t, sa, a), newConn(t, sb, b)
}

// waitDone waits for a connection to end.
func waitDone(t *testing.T, c *jsonrpc.Conn) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(waitLimit):
		t.Fatalf("the connection did not end within %v", waitLimit)
	}
}

// receive waits for a value on ch.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out after %v waiting for %s", waitLimit, what)
		panic("unreachable")
	}
}

// timeoutCtx returns a context that ends after waitLimit.
func timeoutCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// peer is the raw far end of a Conn: it reads and writes whole messages on
// a Stream with no Conn of its own, so tests see exactly what is on the wire.
type peer struct {
	t *testing.T
	s jsonrpc.Stream
}

// pipeEnds returns the two ends of a Pipe; the second is closed when the
// test ends (the first belongs to a Conn, which closes it).
func pipeEnds(t *testing.T) (conn, raw jsonrpc.Stream) {
	conn, raw = transport.Pipe()
	t.Cleanup(func() { raw.Close() })
	return conn, raw
}

// pipePeer returns a Conn and the raw peer at the other end of a Pipe.
func pipePeer(t *testing.T, opts jsonrpc.ConnOptions) (*jsonrpc.Conn, *peer) {
	t.Helper()
	sc, sp := pipeEnds(t)
	return newConn(t, sc, opts), &peer{t: t, s: sp}
}

func (p *peer) send(msg jsonrpc.Message) {
	p.t.Helper()
	if err := p.s.Write(timeoutCtx(p.t), msg); err != nil {
		p.t.Fatalf("peer: writing %s: %v", describe(msg), err)
	}
}

func (p *peer) recv() jsonrpc.Message {
	p.t.Helper()
	msg, err := p.s.Read(timeoutCtx(p.t))
	if err != nil {
		p.t.Fatalf("peer: reading: %v", err)
	}
	return msg
}

// recvResponse reads the next message and requires a single response.
func (p *peer) recvResponse() *jsonrpc.Response {
	p.t.Helper()
	msg := p.recv()
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		p.t.Fatalf("peer: got %s; want a response", describe(msg))
	}
	return resp
}

// request builds a request with an integer id.
func request(id int64, method, params string) *jsonrpc.Request {
	r := &jsonrpc.Request{ID: jsonrpc.Int64ID(id), Method: method}
	if params != "" {
		r.Params = []byte(params)
	}
	return r
}

// linePeer is the raw far end of a Conn over newline-delimited stdio, for
// tests that must put arbitrary bytes on the wire.
type linePeer struct {
	t     *testing.T
	w     *io.PipeWriter
	lines chan []byte
}

// stdioPeer returns a Conn over a StdioStream and the raw peer writing and
// reading its lines.
func stdioPeer(t *testing.T, opts jsonrpc.ConnOptions, sopts ...transport.Option) (*jsonrpc.Conn, *linePeer) {
	t.Helper()
	toConnR, toConnW := io.Pipe()
	fromConnR, fromConnW := io.Pipe()
	c := newConn(t, transport.NewStdio(toConnR, fromConnW, sopts...), opts)
	p := &linePeer{t: t, w: toConnW, lines: make(chan []byte, 64)}
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(fromConnR)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			p.lines <- line
		}
	}()
	t.Cleanup(func() {
		toConnW.Close()
		fromConnR.Close()
	})
	return c, p
}

func (p *linePeer) sendLine(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.w, s+"\n"); err != nil {
		p.t.Fatalf("peer: writing a line: %v", err)
	}
}

// recv reads the next line and decodes it.
func (p *linePeer) recv() jsonrpc.Message {
	p.t.Helper()
	var line []byte
	var ok bool
	select {
	case line, ok = <-p.lines:
	case <-time.After(waitLimit):
		p.t.Fatalf("peer: no line within %v", waitLimit)
	}
	if !ok {
		p.t.Fatalf("peer: the connection's output ended")
	}
	if bytes.Count(line, []byte("\n")) != 1 {
		p.t.Fatalf("peer: line %q does not hold exactly one newline", line)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		p.t.Fatalf("peer: the connection wrote an invalid message %q: %v", line, err)
	}
	return msg
}

func (p *linePeer) recvResponse() *jsonrpc.Response {
	p.t.Helper()
	msg := p.recv()
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		p.t.Fatalf("peer: got %s; want a response", describe(msg))
	}
	return resp
}

// logBuffer collects log output safely across goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// newLogger returns a debug-level logger writing into a logBuffer.
func newLogger() (*slog.Logger, *logBuffer) {
	lb := &logBuffer{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}
