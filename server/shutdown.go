package server

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// How a session ends: its handlers' contexts end with one of these causes,
// open subscriptions/listen streams answer with their closing result, and
// the connection closes.

// ErrClientClosed is the cause (context.Cause) of a handler's context when
// the client closed its input to the session: the end of stdin, with which
// a stdio client shuts the server down. The session ends once every
// handler has returned and been answered.
var ErrClientClosed = errors.New("server: the client closed the connection")

// ErrSessionClosed is the cause of a handler's context when the session is
// closed by Session.Close.
var ErrSessionClosed = errors.New("server: the session is closing")

// listenCloseGrace bounds how long closing a session waits for the closing
// results of its open subscriptions/listen streams to be written: a client
// that stopped reading must not keep it open.
const listenCloseGrace = time.Second

// endHandlers ends the context of every handler of the session with cause
// (the first cause given wins).
func (ss *Session) endHandlers(cause error) {
	ss.lifeMu.Lock()
	if ss.handlers != nil {
		ss.cancelHandler(cause)
	} else if ss.handlersCause == nil {
		ss.handlersCause = cause
	}
	ss.lifeMu.Unlock()
	ss.handlersEnded.Store(true)
}

// link returns the context of a handler: ctx (the connection's context of
// the request), which also ends when the session's handlers end, with
// their cause, until detach is called once the handler has returned.
func (ss *Session) link(ctx context.Context) *handlerContext {
	return &handlerContext{conn: ctx, sess: ss}
}

// handlerContext ends with conn or with the session's handlers, whichever
// ends first. Merging two contexts costs a child context and an AfterFunc,
// so it is done only when needed: when Done is called (by the handler, or
// by a context derived from this one), or once the session's handlers have
// ended. A handler that never waits on its context, as most quick ones do,
// costs one small allocation.
type handlerContext struct {
	conn   context.Context
	sess   *Session
	merged atomic.Pointer[context.Context] // set up by merge

	mu       sync.Mutex  // guards the tie to the session's handlers
	untie    func() bool // undoes it; nil when there is none
	detached bool        // the handler has returned: tie nothing more
}

// merge returns the merged context, setting it up on first use.
func (c *handlerContext) merge() context.Context {
	if m := c.merged.Load(); m != nil {
		return *m
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.merged.Load(); m != nil {
		return *m
	}
	m, cancel := context.WithCancelCause(c.conn)
	handlers := c.sess.handlersContext()
	end := func() { cancel(context.Cause(handlers)) }
	switch {
	case handlers.Err() != nil:
		end() // at once: Err and Cause must see it on return
	case !c.detached:
		c.untie = context.AfterFunc(handlers, end)
	}
	c.merged.Store(&m)
	return m
}

// detach undoes the tie to the session's handlers once the handler has
// returned. Its context then ends with the request's, which jsonrpc ends
// as soon as the answer is written; undoing the tie when that happens
// (an AfterFunc on the merged context) started a goroutine for every
// request whose handler had waited on its context, as a call to a Redis
// store does: that goroutine and the thread it woke were about 5% of the
// weft server's CPU in the Redis legacy task row over stdio at 1 in flight
// (two interleaved pairs of harness runs: 511, 495 → 462, 475 µs a task).
func (c *handlerContext) detach() {
	c.mu.Lock()
	c.detached = true
	untie := c.untie
	c.untie = nil
	c.mu.Unlock()
	if untie != nil {
		untie()
	}
}

// current returns the context that answers now: the merged one once set
// up or needed, else the connection's.
func (c *handlerContext) current() context.Context {
	if m := c.merged.Load(); m != nil {
		return *m
	}
	if c.sess.handlersEnded.Load() {
		return c.merge()
	}
	return c.conn
}

func (c *handlerContext) Deadline() (time.Time, bool) { return c.conn.Deadline() }
func (c *handlerContext) Done() <-chan struct{}       { return c.merge().Done() }
func (c *handlerContext) Err() error                  { return c.current().Err() }
func (c *handlerContext) Value(key any) any           { return c.current().Value(key) }

// trackListen records an open subscriptions/listen request with its
// connection context, which ends once the request has been answered (or
// its answer dropped); it is forgotten then.
func (ss *Session) trackListen(ctx context.Context, id jsonrpc.ID) {
	ss.mu.Lock()
	u := ss.useLocked()
	if u.listens == nil {
		u.listens = make(map[jsonrpc.ID]context.Context)
	}
	u.listens[id] = ctx
	ss.mu.Unlock()
	context.AfterFunc(ctx, func() {
		ss.mu.Lock()
		if u.listens[id] == ctx {
			delete(u.listens, id)
		}
		ss.mu.Unlock()
	})
}

// close ends the session once, with cause: the handlers' contexts end, the
// open listen streams' closing results are written (waiting at most
// listenCloseGrace), then the connection is closed. It does not wait for
// the connection's read loop, whose read may not be interruptible.
func (ss *Session) close(cause error) error {
	ss.closeOnce.Do(func() {
		ss.endHandlers(cause)
		var open []context.Context
		ss.mu.Lock()
		if ss.used != nil {
			for _, ctx := range ss.used.listens {
				open = append(open, ctx)
			}
		}
		ss.mu.Unlock()
		grace := time.NewTimer(listenCloseGrace)
		defer grace.Stop()
	wait:
		for _, ctx := range open {
			select {
			case <-ctx.Done():
			case <-ss.conn.Done():
				break wait
			case <-grace.C:
				ss.srv.logger.Warn("server: closing a session before its listen streams' closing results were written", "session", ss.id)
				break wait
			}
		}
		ss.closeErr = ss.conn.Close()
	})
	return ss.closeErr
}
