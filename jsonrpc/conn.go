package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
)

// ErrClosed is the error (found with errors.Is) of calls that cannot
// complete because the connection has ended, and of Conn.Err.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Defaults for ConnOptions.
const (
	DefaultMaxInFlight = 64
	DefaultMaxQueued   = 1024
)

// maxIdleWorkers is how many handler goroutines may wait for the next
// request after finishing one, so that a steady flow of calls reuses
// goroutines (and their grown stacks) instead of starting new ones.
const maxIdleWorkers = 4

// replyBacklog is how many protocol replies (errors the read loop produces
// itself) may wait for the writer before the read loop waits too.
const replyBacklog = 64

// ConnOptions configures a Conn. The zero value is usable.
type ConnOptions struct {
	// Handler serves incoming requests and notifications. Nil answers every
	// request with -32601 (method not found) and ignores notifications.
	// Notifications are handled on the read loop: their handler must return
	// quickly and must not wait for a response (Call), which that same loop
	// would have to read; it may start a goroutine for such work.
	Handler Handler
	// MaxInFlight is how many request handlers may run at once; 0 means
	// DefaultMaxInFlight.
	MaxInFlight int
	// MaxQueued is how many requests may wait for a handler slot, in arrival
	// order; 0 means DefaultMaxQueued. A request beyond it is answered at
	// once with -32000 "server busy".
	MaxQueued int
	// AllowBatch is consulted for each incoming Batch. When it is nil or
	// returns false, the batch is answered with a single -32600 error.
	AllowBatch func() bool
	// OnCallAbandoned is called when the context of a Call ends before its
	// response arrives, after the call has been forgotten (a late response
	// is dropped), with the call's ID and method and why it was given up:
	// the context's cause (context.Cause), so a reason the caller gave with
	// context.WithCancelCause reaches the hook. The MCP layer sends
	// notifications/cancelled from here. It runs on the goroutine of the Call.
	OnCallAbandoned func(id ID, method string, cause error)
	// Logger receives the connection's diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Conn is one end of a JSON-RPC connection over a Stream. It is symmetric:
// each side both makes calls (Call, Notify) and serves them (Handler).
//
// A single read loop reads every message. Responses are matched to pending
// calls at once; notifications are handled on the read loop, in arrival
// order, so their handlers must be quick; requests are handled concurrently,
// at most MaxInFlight at a time, with up to MaxQueued more waiting in arrival
// order. The read loop never waits for a handler, so a handler that waits for
// the peer's answer to its own Call cannot deadlock a full pool.
type Conn struct {
	stream      Stream
	handler     Handler
	maxInFlight int
	maxQueued   int
	allowBatch  func() bool
	onAbandoned func(ID, string, error)
	logger      *slog.Logger

	// ctx is cancelled when the connection shuts down. The read loop and
	// notification handlers run under it.
	ctx    context.Context
	cancel context.CancelFunc

	writeSem chan struct{} // holds one token while a message is being written
	replies  chan reply    // protocol replies for replyLoop
	handoff  chan *inbound // requests for idle workers; never fuller than idle
	nextID   atomic.Int64

	mu       sync.Mutex
	pending  map[string]*call    // outgoing calls awaiting a response, by ID text
	inbound  map[string]*inbound // incoming requests accepted and not yet answered
	queue    inboundQueue        // accepted requests waiting for a slot
	running  int                 // request handlers running
	idle     int                 // workers waiting on handoff
	drained  chan struct{}       // closed when the last handler ends after the peer's EOF
	readDone bool                // the read loop has stopped: no response can arrive
	closing  bool                // shutdown has begun
	err      error               // why the connection ended (or is ending); set with readDone or closing

	shutdownOnce sync.Once
	closeErr     error // the result of Stream.Close
	done         chan struct{}
}

// NewConn returns a connection over stream and starts reading at once.
func NewConn(stream Stream, opts ConnOptions) *Conn {
	c := &Conn{
		stream:      stream,
		handler:     opts.Handler,
		maxInFlight: opts.MaxInFlight,
		maxQueued:   opts.MaxQueued,
		allowBatch:  opts.AllowBatch,
		onAbandoned: opts.OnCallAbandoned,
		logger:      opts.Logger,
		writeSem:    make(chan struct{}, 1),
		replies:     make(chan reply, replyBacklog),
		handoff:     make(chan *inbound, maxIdleWorkers),
		pending:     make(map[string]*call),
		inbound:     make(map[string]*inbound),
		done:        make(chan struct{}),
	}
	if c.handler == nil {
		c.handler = HandlerFunc(methodNotFound)
	}
	if c.maxInFlight <= 0 {
		c.maxInFlight = DefaultMaxInFlight
	}
	if c.maxQueued <= 0 {
		c.maxQueued = DefaultMaxQueued
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.readLoop()
	go c.replyLoop()
	return c
}

// methodNotFound is the handler of a Conn that has none.
func methodNotFound(_ context.Context, req *Request) (any, error) {
	return nil, NewError(CodeMethodNotFound, "method %q not found", req.Method)
}

// Close ends the connection: pending calls fail with ErrClosed, running
// handlers' contexts are cancelled, queued requests are dropped, and the
// stream is closed. It returns the stream's Close error; it does not wait for
// handlers. Done is closed once the read loop has stopped.
func (c *Conn) Close() error {
	c.shutdown(nil)
	return c.closeErr
}

// Done is closed when the connection has ended: after Close, after a read
// error, or after the peer closed its side and the last handler finished.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns nil while the connection is open, and afterwards why it ended:
// an error that matches ErrClosed and, when the stream failed or the peer
// closed it, the stream's error too (io.EOF for a clean end of input).
func (c *Conn) Err() error {
	select {
	case <-c.done:
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// endedError is the error of work that cannot complete because the
// connection ended (cause nil: closed locally).
func endedError(cause error) error {
	if cause == nil {
		return ErrClosed
	}
	return fmt.Errorf("%w: %w", ErrClosed, cause)
}

// readLoop reads and dispatches messages until the stream fails or ends.
func (c *Conn) readLoop() {
	defer close(c.done)
	for {
		msg, err := c.stream.Read(c.ctx)
		if err == nil {
			c.dispatch(msg)
			continue
		}
		var de *DecodeError
		if errors.As(err, &de) {
			c.rejectMessage(de)
			continue
		}
		c.endReading(err)
		return
	}
}

// dispatch routes one message.
func (c *Conn) dispatch(msg Message) {
	switch m := msg.(type) {
	case *Response:
		c.deliver(m)
	case *Request:
		if m.IsNotification() {
			c.handleNotification(m)
		} else if reply := c.accept(m, nil); reply != nil {
			c.reply(reply)
		}
	case Batch:
		c.dispatchBatch(m)
	}
}

// rejectMessage answers a message the stream could not decode. A malformed
// response is not answered: it fails the call it names, if any.
func (c *Conn) rejectMessage(de *DecodeError) {
	if de.IsResponse {
		c.logger.Warn("jsonrpc: received an invalid response", "id", de.ID, "error", de.Err.Message)
		if de.ID.IsValid() && !de.ID.IsNull() {
			c.failCall(de.ID, fmt.Errorf("jsonrpc: the peer's response is invalid: %w", de))
		}
		return
	}
	c.logger.Warn("jsonrpc: received an invalid message", "id", de.ID, "code", de.Err.Code, "error", de.Err.Message)
	id := de.ID
	if !id.IsValid() {
		id = NullID
	}
	c.reply(&Response{ID: id, Error: de.Err})
}

// endReading handles the end of input. After a clean EOF the connection
// stays up until every accepted request has been answered (the peer may
// still read); any other read error ends it at once.
func (c *Conn) endReading(err error) {
	cause := err
	if !errors.Is(err, io.EOF) {
		cause = fmt.Errorf("reading from the stream: %w", err)
	}
	ended := endedError(cause)
	c.mu.Lock()
	c.readDone = true
	if c.err == nil {
		c.err = ended
	}
	calls := c.takePendingLocked()
	var drained chan struct{}
	if errors.Is(err, io.EOF) && !c.closing && (c.running > 0 || c.queue.len > 0) {
		drained = make(chan struct{})
		c.drained = drained
	}
	c.mu.Unlock()
	for _, cl := range calls {
		cl.finish(nil, ended)
	}
	if errors.Is(err, io.EOF) {
		if drained != nil {
			select {
			case <-drained:
			case <-c.ctx.Done():
			}
		}
		c.flushReplies()
	}
	c.shutdown(cause)
}

// shutdown ends the connection once; cause is nil for a local Close.
func (c *Conn) shutdown(cause error) {
	c.shutdownOnce.Do(func() {
		ended := endedError(cause)
		c.mu.Lock()
		c.closing = true
		if c.err == nil {
			c.err = ended
		}
		calls := c.takePendingLocked()
		handlers := make([]*inbound, 0, len(c.inbound))
		for _, in := range c.inbound {
			handlers = append(handlers, in)
		}
		clear(c.inbound)
		c.queue = inboundQueue{}
		c.mu.Unlock()

		c.cancel()
		for _, in := range handlers {
			in.cancel()
		}
		for _, cl := range calls {
			cl.finish(nil, ended)
		}
		c.closeErr = c.stream.Close()
	})
}

// write sends one message; writes are serialized. ctx is passed to the
// stream so it can route messages sent from inside a handler.
func (c *Conn) write(ctx context.Context, msg Message) error {
	select {
	case c.writeSem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.ctx.Done():
		return c.ended()
	}
	defer func() { <-c.writeSem }()
	if c.ctx.Err() != nil {
		return c.ended()
	}
	return c.stream.Write(ctx, msg)
}

// writeResponse sends the response to an incoming request. Unlike write it
// does not watch ctx, which nothing cancels before the response is sent
// (CancelInbound suppresses the response instead), so the handler's context
// never has to make its Done channel; ctx still reaches the stream.
func (c *Conn) writeResponse(ctx context.Context, resp *Response) error {
	select {
	case c.writeSem <- struct{}{}:
	case <-c.ctx.Done():
		return c.ended()
	}
	defer func() { <-c.writeSem }()
	if c.ctx.Err() != nil {
		return c.ended()
	}
	return c.stream.Write(ctx, resp)
}

// ended returns the error of work refused because the connection ended.
func (c *Conn) ended() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return ErrClosed
}

// reply is an item for replyLoop: a message to write, or (msg nil) a flush
// request, whose channel is closed once everything queued before it is out.
type reply struct {
	msg     Message
	flushed chan struct{}
}

// reply queues a message the read loop produced itself (an error response,
// a batch reply) for replyLoop, so the read loop never waits on the peer
// reading; only a long backlog makes it wait.
func (c *Conn) reply(msg Message) {
	select {
	case c.replies <- reply{msg: msg}:
	case <-c.ctx.Done():
	}
}

// flushReplies waits until every reply queued so far has been written, or
// the connection has shut down.
func (c *Conn) flushReplies() {
	flushed := make(chan struct{})
	select {
	case c.replies <- reply{flushed: flushed}:
	case <-c.ctx.Done():
		return
	}
	select {
	case <-flushed:
	case <-c.ctx.Done():
	}
}

// replyLoop writes queued protocol replies until the connection ends.
func (c *Conn) replyLoop() {
	for {
		select {
		case r := <-c.replies:
			if r.msg == nil {
				close(r.flushed)
				continue
			}
			if err := c.write(c.ctx, r.msg); err != nil && c.ctx.Err() == nil {
				c.logger.Warn("jsonrpc: could not send a reply", "error", err)
			}
		case <-c.ctx.Done():
			return
		}
	}
}
