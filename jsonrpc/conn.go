package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is the error (found with errors.Is) of calls that cannot
// complete because the connection has ended, and of Conn.Err.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Defaults for ConnOptions.
const (
	DefaultMaxInFlight = 64
	DefaultMaxQueued   = 1024
)

// idleWorkerLinger is how long a handler goroutine waits for the next
// request after finishing one before it ends. Reusing goroutines (and the
// stacks they grew) under a steady flow of calls saves starting and growing
// new ones; letting them end soon after the flow stops means an idle
// connection keeps none.
const idleWorkerLinger = time.Second

// replyBacklog is how many protocol replies (errors the connection produces
// itself, and batch replies) may wait to be written before the goroutine
// producing another one writes it itself, so a peer that sends without
// reading cannot make them pile up.
const replyBacklog = 64

// ConnOptions configures a Conn. The zero value is usable.
type ConnOptions struct {
	// Handler serves incoming requests and notifications. Nil answers every
	// request with -32601 (method not found) and ignores notifications.
	// Notifications are handled as they are taken in (on the read loop, or
	// on the goroutine of a PushStream giving them): their handler must
	// return quickly and must not wait for a response (Call), which may have
	// to be taken in by that same goroutine; it may start a goroutine for
	// such work.
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
	// OnDone, if set, is called once when the connection has ended, on the
	// goroutine that ended it, before Done is closed: whoever waits on Done
	// sees what it did. It lets the owner of a connection release what it
	// holds for it without keeping a goroutine waiting on Done; it must not
	// block. Err already reports why the connection ended.
	OnDone func()
	// Logger receives the connection's diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Conn is one end of a JSON-RPC connection over a Stream. It is symmetric:
// each side both makes calls (Call, Notify) and serves them (Handler).
//
// Incoming messages are taken in one at a time: by a read loop the Conn runs
// itself, or, over a PushStream, from the stream's own goroutines (see
// PushStream). Responses are matched to pending calls at once; notifications
// are handled as they are taken in, in arrival order, so their handlers must
// be quick; requests are handled concurrently, at most MaxInFlight at a
// time, with up to MaxQueued more waiting in arrival order. Taking in a
// message never waits for a handler slot, so a handler that waits for the
// peer's answer to its own Call cannot deadlock a full pool.
//
// Request handlers run on goroutines the Conn starts when a request arrives;
// a goroutine that finished one waits a short while for the next before it
// ends. A request the read loop reads while a slot is free it serves itself,
// which spares a goroutine switch per call; reading moves to a new goroutine
// as soon as such a handler calls the peer, or when it has run for about a
// millisecond, so a slow handler holds up the messages behind it by no more
// than that. Protocol replies the Conn makes itself (errors for messages it cannot
// take, batch replies) are written by a goroutine started while there are
// any. So an idle Conn over a PushStream holds no goroutine at all.
type Conn struct {
	stream      Stream
	handler     Handler
	maxInFlight int
	maxQueued   int
	allowBatch  func() bool
	onAbandoned func(ID, string, error)
	onDone      func()
	logger      *slog.Logger

	// ctx is cancelled when the connection shuts down. Notification
	// handlers run under it.
	ctx    context.Context
	cancel context.CancelFunc

	takeMu sync.Mutex // serializes taking in messages (dispatch)
	nextID atomic.Int64

	mu         sync.Mutex
	pending    table[*call]    // outgoing calls awaiting a response, by ID text
	inbound    table[*inbound] // incoming requests accepted and not yet answered, by ID text
	queue      inboundQueue    // accepted requests waiting for a slot
	running    int             // request handlers running
	idle       int             // idle workers waiting on handoff and not yet handed a request
	handoff    chan *inbound   // requests for idle workers, made on first use; never fuller than the workers waiting
	writing    bool            // a message is being written: the turn to write is taken
	waiting    int             // writers waiting for the turn
	writeTurn  chan struct{}   // passes the turn to a waiting writer; made when writers first contend
	replies    []Message       // protocol replies waiting for the reply writer
	replying   bool            // the reply writer is running
	readDone   bool            // input has ended: no response can arrive
	endCause   error           // why input ended cleanly (io.EOF), once it has
	closing    bool            // shutdown has begun
	err        error           // why the connection ended (or is ending); set with readDone or closing
	reading    *readingState   // the read loop serving requests itself; nil over a PushStream
	holds      int             // what must finish before the connection has ended: shutdown, and the read loop if any
	ended      bool            // holds reached 0: Err reports why
	doneClosed bool            // OnDone has returned: Done is closed
	done       chan struct{}   // Done's channel, made on first use

	shutdownOnce sync.Once
	closeErr     error // the result of Stream.Close
}

// NewConn returns a connection over stream and starts taking in messages at
// once: over a PushStream it hands the stream its Receiver; over any other
// Stream it starts a read loop.
func NewConn(stream Stream, opts ConnOptions) *Conn {
	c := &Conn{
		stream:      stream,
		handler:     opts.Handler,
		maxInFlight: opts.MaxInFlight,
		maxQueued:   opts.MaxQueued,
		allowBatch:  opts.AllowBatch,
		onAbandoned: opts.OnCallAbandoned,
		onDone:      opts.OnDone,
		logger:      opts.Logger,
		holds:       1,
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
	if ps, ok := stream.(PushStream); ok {
		ps.Push(receiver{c})
		return c
	}
	c.holds++
	c.reading = new(readingState)
	go c.readLoop()
	return c
}

// methodNotFound is the handler of a Conn that has none.
func methodNotFound(_ context.Context, req *Request) (any, error) {
	return nil, NewError(CodeMethodNotFound, "method %q not found", req.Method)
}

// Close ends the connection: pending calls fail with ErrClosed, running
// handlers' contexts are cancelled, queued requests are dropped, and the
// stream is closed. It returns the stream's Close error; it does not wait for
// handlers. Done is closed once the read loop, if any, has stopped.
func (c *Conn) Close() error {
	c.shutdown(nil)
	return c.closeErr
}

// Done is closed when the connection has ended — after Close, after a read
// error, or after the peer closed its side and the last handler finished —
// and OnDone, if set, has returned.
func (c *Conn) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.doneClosed {
			close(c.done)
		}
	}
	return c.done
}

// Err returns nil while the connection is open, and afterwards why it ended:
// an error that matches ErrClosed and, when the stream failed or the peer
// closed it, the stream's error too (io.EOF for a clean end of input).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		return nil
	}
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

// readLoop reads and takes in messages until the stream fails or ends. A
// single request it reads it serves itself when a handler slot is free
// (see serveRead); when reading has passed to another goroutine meanwhile,
// this one, once the request is answered, waits to be handed reading back
// (see readAgain) or ends.
func (c *Conn) readLoop() {
	var linger *time.Timer
	defer func() {
		if linger != nil {
			linger.Stop()
		}
	}()
	for {
		msg, err := c.stream.Read(c.ctx)
		if req, ok := msg.(*Request); ok && err == nil && !req.IsNotification() {
			if !c.serveRead(req) && !c.readAgain(&linger) {
				return
			}
			continue
		}
		c.take(msg, err)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				c.release()
				return
			}
		}
	}
}

// take takes in one message, or the error reading one: a *DecodeError is
// answered, any other error ends input.
func (c *Conn) take(msg Message, err error) {
	if err == nil {
		c.takeMu.Lock()
		c.dispatch(msg)
		c.takeMu.Unlock()
		return
	}
	var de *DecodeError
	if errors.As(err, &de) {
		c.rejectMessage(de)
		return
	}
	c.endReading(err)
}

// release drops one hold (see Conn.holds); with the last, the connection
// has ended: OnDone is called, then Done is closed.
func (c *Conn) release() {
	c.mu.Lock()
	c.holds--
	if c.holds > 0 {
		c.mu.Unlock()
		return
	}
	c.ended = true
	c.mu.Unlock()
	if c.onDone != nil {
		c.onDone()
	}
	c.mu.Lock()
	c.doneClosed = true
	if c.done != nil {
		close(c.done)
	}
	c.mu.Unlock()
}

// dispatch routes one message.
func (c *Conn) dispatch(msg Message) {
	switch m := msg.(type) {
	case *Response:
		c.deliver(m)
	case *Request:
		if m.IsNotification() {
			c.handleNotification(m)
		} else if _, reject := c.accept(m, nil, false); reject != nil {
			c.reply(reject)
		}
	case Batch:
		c.dispatchBatch(m)
	case *DecodeError:
		c.rejectMessage(m)
	}
}

// rejectMessage answers a message the stream could not decode.
func (c *Conn) rejectMessage(de *DecodeError) {
	if resp := c.rejection(de); resp != nil {
		c.reply(resp)
	}
}

// rejection returns the error response to a message that could not be
// decoded. A malformed response is not answered (rejection returns nil): it
// fails the call it names, if any.
func (c *Conn) rejection(de *DecodeError) *Response {
	if de.IsResponse {
		c.logger.Warn("jsonrpc: received an invalid response", "id", de.ID, "error", de.Err.Message)
		if de.ID.IsValid() && !de.ID.IsNull() {
			c.failCall(de.ID, fmt.Errorf("jsonrpc: the peer's response is invalid: %w", de))
		}
		return nil
	}
	c.logger.Warn("jsonrpc: received an invalid message", "id", de.ID, "code", de.Err.Code, "error", de.Err.Message)
	id := de.ID
	if !id.IsValid() {
		id = NullID
	}
	return &Response{ID: id, Error: de.Err}
}

// endReading handles the end of input. After a clean EOF the connection
// stays up until every accepted request has been answered and every
// protocol reply written (the peer may still read); any other read error
// ends it at once.
func (c *Conn) endReading(err error) {
	cause := err
	if !errors.Is(err, io.EOF) {
		cause = fmt.Errorf("reading from the stream: %w", err)
	}
	ended := endedError(cause)
	c.mu.Lock()
	if c.readDone {
		c.mu.Unlock()
		return
	}
	c.readDone = true
	if c.err == nil {
		c.err = ended
	}
	calls := c.takePendingLocked()
	if errors.Is(err, io.EOF) {
		c.endCause = cause
	}
	finished := c.finishedLocked()
	c.mu.Unlock()
	for _, cl := range calls {
		cl.finish(nil, ended)
	}
	if !errors.Is(err, io.EOF) || finished {
		c.shutdown(cause)
	}
}

// finishedLocked reports whether input has ended cleanly and nothing is
// left to send: no request handler running or queued and no protocol reply
// waiting. Whoever makes it true shuts the connection down. c.mu is held.
func (c *Conn) finishedLocked() bool {
	return c.endCause != nil && !c.closing && c.running == 0 && c.queue.len == 0 && !c.replying
}

// shutdown ends the connection once; cause is nil for a local Close.
func (c *Conn) shutdown(cause error) {
	first, orphaned := false, false
	c.shutdownOnce.Do(func() {
		first = true
		ended := endedError(cause)
		c.mu.Lock()
		c.closing = true
		if r := c.reading; r != nil && r.continuing {
			// The read loop runs what a handler left to run once answered,
			// which the connection's end does not wait for: its hold goes.
			r.serving, r.continuing, orphaned = nil, false, true
		}
		if c.err == nil {
			c.err = ended
		}
		calls := c.takePendingLocked()
		handlers := c.inbound.takeAll()
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
	if first {
		c.release() // outside the Once: OnDone may call Close
	}
	if orphaned {
		c.release()
	}
}

// write sends one message; writes are serialized. ctx is passed to the
// stream so it can route messages sent from inside a handler; while another
// message is being written, write waits for its turn unless ctx ends first.
func (c *Conn) write(ctx context.Context, msg Message) error {
	_, err := c.writeTelling(ctx, msg)
	return err
}

// writeTelling is write that also reports whether the stream's Write was
// called: once it was, the message may have reached the peer whatever the
// error (ctx can end while a Streamable HTTP POST waits for its response,
// after the server has begun serving its request).
func (c *Conn) writeTelling(ctx context.Context, msg Message) (reached bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := c.takeWriteTurn(ctx); err != nil {
		return false, err
	}
	defer c.passWriteTurn()
	if c.ctx.Err() != nil {
		return false, c.endedErr()
	}
	return true, c.stream.Write(ctx, msg)
}

// writeResponse sends the response to an incoming request. Unlike write it
// does not watch ctx, which nothing cancels before the response is sent
// (CancelInbound suppresses the response instead), so the handler's context
// never has to make its Done channel; ctx still reaches the stream.
func (c *Conn) writeResponse(ctx context.Context, resp *Response) error {
	if err := c.takeWriteTurn(context.Background()); err != nil {
		return err
	}
	defer c.passWriteTurn()
	if c.ctx.Err() != nil {
		return c.endedErr()
	}
	return c.stream.Write(ctx, resp)
}

// takeWriteTurn waits until no other message is being written and takes
// the turn to write one, which the caller passes on with passWriteTurn. It
// returns ctx's error if ctx ends first (context.Background never does),
// and the connection's error if the connection ends first. The channel
// the turn is passed on through, and the contexts' Done channels, are made
// only when writers contend, so a connection that writes one message at a
// time holds none of them.
func (c *Conn) takeWriteTurn(ctx context.Context) error {
	c.mu.Lock()
	if !c.writing {
		c.writing = true
		c.mu.Unlock()
		return nil
	}
	if c.writeTurn == nil {
		c.writeTurn = make(chan struct{}, 1)
	}
	turn := c.writeTurn
	c.waiting++
	c.mu.Unlock()
	var err error
	select {
	case <-turn:
	case <-ctx.Done():
		err = ctx.Err()
	case <-c.ctx.Done():
		err = c.endedErr()
	}
	c.mu.Lock()
	c.waiting--
	c.mu.Unlock()
	return err
}

// passWriteTurn ends the caller's turn to write: it goes to a waiting
// writer, if any. A writer that stopped waiting may leave the turn unclaimed
// in writeTurn; the next writer to wait takes it at once.
func (c *Conn) passWriteTurn() {
	c.mu.Lock()
	if c.waiting == 0 {
		c.writing = false
		c.mu.Unlock()
		return
	}
	turn := c.writeTurn
	c.mu.Unlock()
	turn <- struct{}{} // never blocks: only the writer holding the turn sends, and it is taken before the next send
}

// endedErr returns the error of work refused because the connection ended.
func (c *Conn) endedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return ErrClosed
}

// reply sends a message the connection produced itself (an error response,
// a batch reply) without waiting for the peer to read it: the reply writer,
// a goroutine started while there are replies to write, writes it. Only a
// long backlog makes the caller write it itself.
func (c *Conn) reply(msg Message) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	if len(c.replies) >= replyBacklog {
		c.mu.Unlock()
		c.writeReply(msg)
		return
	}
	c.replies = append(c.replies, msg)
	start := !c.replying
	c.replying = true
	c.mu.Unlock()
	if start {
		go c.writeReplies()
	}
}

// writeReplies is the reply writer: it writes queued replies until there
// are none, then ends.
func (c *Conn) writeReplies() {
	for {
		c.mu.Lock()
		if len(c.replies) == 0 || c.closing {
			c.replies, c.replying = nil, false
			finished := c.finishedLocked()
			cause := c.endCause
			c.mu.Unlock()
			if finished {
				c.shutdown(cause)
			}
			return
		}
		msg := c.replies[0]
		c.replies[0] = nil
		c.replies = c.replies[1:]
		c.mu.Unlock()
		c.writeReply(msg)
	}
}

// writeReply writes one protocol reply, logging a failure.
func (c *Conn) writeReply(msg Message) {
	if err := c.write(c.ctx, msg); err != nil && c.ctx.Err() == nil {
		c.logger.Warn("jsonrpc: could not send a reply", "error", err)
	}
}
