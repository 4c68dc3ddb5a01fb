package jsonrpc

import (
	"context"
	"time"
)

// The read loop serves a request it reads itself when a handler slot is
// free, instead of handing it to a worker goroutine: a quick handler then
// costs no goroutine switch, which is most of the cost of a call made one
// at a time. So that a slow handler cannot hold up reading (a cancellation,
// the response to the handler's own Call, other requests), reading passes
// to another goroutine when the handler calls the peer, or when the
// request has been served for a readWatchTick (see watchLocked), or
// before the handler waits for something slow (WillWait).

// readWatchTick is how long the read loop serves one request before
// reading is taken off its goroutine.
const readWatchTick = time.Millisecond

// readingState is what the read loop's serving of requests needs. It is
// guarded by Conn.mu.
type readingState struct {
	serving *inbound // the request the read loop is serving, nil while it reads
	// continuing is set while the read loop runs what serving's handler
	// left to run once answered (AfterResponse): it holds no handler slot,
	// and the connection's end does not wait for it.
	continuing bool
	served     uint64 // requests the read loop has started serving
	// watch fires once the read loop has served one request, the
	// watched'th, for a tick (see watchLocked); made on first use.
	watch   *time.Timer
	watched uint64
	tick    time.Duration // 0 means readWatchTick (tests change it)
	// spares counts the goroutines waiting in readAgain to be handed
	// reading back and not yet handed it; resume hands it to one of them,
	// and is made on first use with room for one hand-off per spare.
	spares int
	resume chan struct{}
}

// maxSpareReaders bounds the goroutines waiting to be handed reading back
// (readAgain). With one, a connection whose handlers wait at 32 in flight
// (every task call on Redis over stdio) still started a goroutine for
// most hand-offs, as two handlers finishing together left one of them to
// end, and each new goroutine grew its stack through the next handler
// (runtime.newstack: 5% of weft's CPU in that row).
const maxSpareReaders = 8

// servingKey is the context key under which a handler's context holds its
// inbound request, so Call can tell it is made from a read loop.
type servingKey struct{}

// serveRead takes in a request the read loop has read: with a handler slot
// free it serves it on the calling goroutine, else it queues it (or
// refuses it) as take would. It reports whether the caller still reads:
// false when reading passed to another goroutine while it served.
func (c *Conn) serveRead(req *Request) bool {
	c.takeMu.Lock()
	in, reject := c.accept(req, nil, true)
	c.takeMu.Unlock()
	if reject != nil {
		c.reply(reject)
	}
	if in == nil {
		return true
	}
	c.mu.Lock()
	c.reading.serving = in
	c.reading.served++
	c.watchLocked()
	c.mu.Unlock()

	if after := c.serve(in); after != nil {
		c.runAfter(in, after)
	} else {
		defer c.served()
	}

	c.mu.Lock()
	reads := c.reading.serving == in
	if reads {
		c.reading.serving, c.reading.continuing = nil, false
		c.reading.watch.Stop()
	}
	c.mu.Unlock()
	return reads
}

// watchLocked arms the watch for the request the read loop has just begun
// to serve: should it still be serving it a tick from now, reading passes
// to another goroutine (see handOffReadingLocked). serveRead stops the
// watch when the request ends, so a quick request costs two timer
// operations and wakes no goroutine. A watcher goroutine ticking every
// millisecond while the loop served woke a thread a thousand times a
// second: the stdio call at 1 in flight went from 1.17× to 1.07× the
// bench's serial-loop floor without it (medians of seven interleaved
// pairs of harness runs). c.mu is held.
func (c *Conn) watchLocked() {
	every := c.reading.tick
	if every == 0 {
		every = readWatchTick
	}
	c.reading.watched = c.reading.served
	if c.reading.watch == nil {
		c.reading.watch = time.AfterFunc(every, c.servedTooLong)
		return
	}
	c.reading.watch.Reset(every)
}

// servedTooLong is the watch firing: it hands reading off the request the
// read loop has served for a tick, if it still serves it. A firing that
// meets the read loop just past the start of its next request, armed
// afresh, hands that one off early, which costs only the hand-off.
func (c *Conn) servedTooLong() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reading.serving != nil && c.reading.served == c.reading.watched {
		c.handOffReadingLocked()
	}
}

// runAfter runs what the handler of in, served by the read loop, left to
// run once answered (AfterResponse), after freeing its handler slot. The
// read loop goes on being busy with in meanwhile, so the watch hands
// reading off should it last; should the connection close meanwhile, it
// ends without waiting for after: this goroutine's hold on it is dropped
// (see shutdown), as at once when it is closing already.
func (c *Conn) runAfter(in *inbound, after func()) {
	c.mu.Lock()
	orphaned := false
	if c.reading.serving == in {
		if c.closing {
			c.reading.serving, orphaned = nil, true
		} else {
			c.reading.continuing = true
		}
	}
	c.mu.Unlock()
	c.served()
	if orphaned {
		c.release()
	}
	after()
}

// handOffReadingLocked passes reading to another goroutine while the read
// loop's goroutine goes on serving its request: to a spare waiting in
// readAgain if there is one, else to a new goroutine. The read loop's hold
// on the connection passes with it. While the connection is closing it
// does nothing: the serving goroutine reads on, finds the stream closed
// and ends. c.mu is held.
func (c *Conn) handOffReadingLocked() {
	if c.reading.serving == nil || c.closing {
		return
	}
	c.reading.serving, c.reading.continuing = nil, false
	if c.reading.spares > 0 {
		c.reading.spares--
		c.reading.resume <- struct{}{} // room for one per spare, and only spares take them
		return
	}
	go c.readLoop()
}

// readAgain is where a goroutine goes once it has answered a request after
// reading passed from it: unless maxSpareReaders wait already, it waits up
// to idleWorkerLinger to be handed reading back, and reports whether it
// was.
// A connection whose handlers wait (for a task store, say) then passes
// reading back and forth between goroutines whose stacks have grown
// through its handlers, where a new goroutine for every hand-off grew a
// fresh stack each time (runtime.newstack: 6–12% of weft's CPU in the
// bench's task rows over stdio on Redis and PostgreSQL). Not an idle
// worker's wait (nextInbound): a worker may drop what it is handed when
// the connection closes, and reading carries the read loop's hold on the
// connection, which must reach a reader. *linger is the goroutine's
// timer, made on first use.
func (c *Conn) readAgain(linger **time.Timer) bool {
	c.mu.Lock()
	if c.reading.spares >= maxSpareReaders || c.closing {
		c.mu.Unlock()
		return false
	}
	c.reading.spares++
	if c.reading.resume == nil {
		c.reading.resume = make(chan struct{}, maxSpareReaders)
	}
	resume := c.reading.resume
	c.mu.Unlock()
	if *linger == nil {
		*linger = time.NewTimer(idleWorkerLinger)
	} else {
		(*linger).Reset(idleWorkerLinger)
	}
	select {
	case <-resume:
		return true
	case <-(*linger).C:
	case <-c.ctx.Done():
	}
	c.mu.Lock()
	if c.reading.spares > 0 {
		// A spare is still unclaimed: this one stops waiting. Which of
		// the waiting goroutines takes a hand-off does not matter.
		c.reading.spares--
		c.mu.Unlock()
		return false
	}
	c.mu.Unlock()
	// Every waiting spare has been handed reading, this one included: its
	// hand-off is in resume (or on its way), and with it the read loop's
	// hold on the connection, which must not be lost.
	<-resume
	return true
}

// WillWait tells the connection serving the request of a handler's ctx
// that the handler is about to wait: for a database, another service, the
// peer. When the connection's read loop is serving that request on its
// own goroutine, reading passes to a new goroutine first, so that the
// connection's other requests are read and served meanwhile (and a
// response the handler waits for is read at all). A handler that does not
// call it has reading taken off its goroutine once it has run for a
// millisecond or two, so a handler waiting that long or longer should
// call it. Work the handler left to run after its response
// (AfterResponse) may call it with the handler's ctx, as before a wait of
// its own. Call calls it; for any other ctx it does nothing.
func WillWait(ctx context.Context) { willWait(ctx, false) }

// MayWait is WillWait for a wait that is usually short, a store's round
// trip say, which holds up reading only for a peer making requests one at
// a time (as most stdio clients do): reading passes on at once when
// another of the connection's requests is being handled or waits for a
// handler slot, or when more input has been read ahead already (a
// ReadAheadStream's buffer); otherwise the read loop's goroutine keeps
// reading, and hands it on, as for any handler, should the wait last a
// millisecond. A client making one request at a time then costs no
// hand-off to another goroutine and no wake-up of one (docs/decisions.md,
// "A short wait passes reading on only when more requests may come").
// Over a stream that cannot tell what it has read ahead, it is WillWait.
func MayWait(ctx context.Context) { willWait(ctx, true) }

// willWait is WillWait, or MayWait when onlyIfMoreMayCome.
func willWait(ctx context.Context, onlyIfMoreMayCome bool) {
	in, _ := ctx.Value(servingKey{}).(*inbound)
	if in == nil {
		return
	}
	c := in.conn
	if c.reading == nil {
		return // a PushStream's: served by the stream's goroutines, with no read loop to hold up
	}
	c.mu.Lock()
	if c.reading.serving == in && (!onlyIfMoreMayCome || c.moreMayComeLocked()) {
		c.handOffReadingLocked()
	}
	c.mu.Unlock()
}

// moreMayComeLocked reports whether the peer may be waiting for requests
// to be read while the read loop serves one: it has others being handled
// or queued, or input the stream has read ahead waits to be read (or the
// stream cannot tell). It is called while the read loop serves a request,
// so no Read is in progress. c.mu is held.
func (c *Conn) moreMayComeLocked() bool {
	others := c.running + c.queue.len
	if !c.reading.continuing {
		others-- // the request being served holds a slot until it is answered
	}
	if others > 0 {
		return true
	}
	ahead, ok := c.stream.(ReadAheadStream)
	return !ok || ahead.Buffered() > 0
}
