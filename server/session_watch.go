package server

import (
	"context"
	"errors"
	"io"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// A session watches what its connection takes in: it notes the id of an
// initialize request as the connection takes it in, before any later
// message is dispatched, so a cancellation that follows it on the wire is
// recognised however the handlers are scheduled; and it notes the end of
// the client's input. Nothing reaches the connection before start: the
// session's conn is set by then.

// startingStream is a stream watch returns.
type startingStream interface {
	jsonrpc.Stream
	// start lets messages through to the connection.
	start()
}

// watch returns the session's stream wrapped so that ss notes what comes
// in: the session as a pushWatch when the stream pushes its messages, else
// a watchedStream (with Buffered when the stream reads ahead).
func (ss *Session) watch() startingStream {
	if _, ok := ss.stream.(jsonrpc.PushStream); ok {
		return (*pushWatch)(ss)
	}
	w := &watchedStream{Stream: ss.stream, session: ss, started: make(chan struct{})}
	if _, ok := ss.stream.(jsonrpc.ReadAheadStream); ok {
		return watchedReadAhead{w}
	}
	return w
}

// watchedReadAhead is a watchedStream over a stream that reads ahead,
// which it lets the connection ask (jsonrpc.MayWait).
type watchedReadAhead struct{ *watchedStream }

// Buffered returns the input the stream has read ahead and not returned.
func (w watchedReadAhead) Buffered() int {
	return w.Stream.(jsonrpc.ReadAheadStream).Buffered()
}

// watchedStream watches a stream the connection reads.
type watchedStream struct {
	jsonrpc.Stream
	session *Session
	started chan struct{} // closed by start
}

// start lets Read through.
func (w *watchedStream) start() { close(w.started) }

// Read reads the next message, once started, and notes it.
func (w *watchedStream) Read(ctx context.Context) (jsonrpc.Message, error) {
	<-w.started
	msg, err := w.Stream.Read(ctx)
	w.session.noteIncoming(msg, err)
	return msg, err
}

// pushWatch is a Session as the jsonrpc.PushStream its connection is made
// over: it keeps the connection's Receiver in the session (recv) and, at
// start, gives the stream the session as a noteReceiver instead. Being
// conversions of the session, neither is an allocation of its own: a
// wrapping stream and Receiver cost an idle legacy HTTP session 72 B in 2
// objects.
type pushWatch Session

// Read reads the session's stream.
func (w *pushWatch) Read(ctx context.Context) (jsonrpc.Message, error) {
	return w.stream.Read(ctx)
}

// Write writes to the session's stream.
func (w *pushWatch) Write(ctx context.Context, msg jsonrpc.Message) error {
	return w.stream.Write(ctx, msg)
}

// Close closes the session's stream.
func (w *pushWatch) Close() error { return w.stream.Close() }

// Push keeps the connection's Receiver until start.
func (w *pushWatch) Push(r jsonrpc.Receiver) { w.recv = r }

// start gives the stream a Receiver that notes each message, then passes
// it to the connection's.
func (w *pushWatch) start() {
	w.stream.(jsonrpc.PushStream).Push((*noteReceiver)(w))
}

// noteReceiver is a Session as the Receiver of its stream: it notes each
// message before the connection's Receiver takes it in.
type noteReceiver Session

// Receive notes msg, or the end of input, then passes it on.
func (n *noteReceiver) Receive(msg jsonrpc.Message, err error) {
	(*Session)(n).noteIncoming(msg, err)
	n.recv.Receive(msg, err)
}

// Serve notes msg, then passes it on.
func (n *noteReceiver) Serve(msg jsonrpc.Message) {
	(*Session)(n).noteIncoming(msg, nil)
	n.recv.Serve(msg)
}

// noteIncoming notes the id of an initialize request, and the end of the
// client's input.
func (ss *Session) noteIncoming(msg jsonrpc.Message, err error) {
	if errors.Is(err, io.EOF) {
		ss.endHandlers(ErrClientClosed)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == mcp.MethodInitialize && !req.IsNotification() {
		ss.mu.Lock()
		if ss.initID == "" {
			ss.initID = req.ID.Raw()
		}
		ss.mu.Unlock()
	}
}
