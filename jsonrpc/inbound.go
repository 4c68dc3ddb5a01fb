package jsonrpc

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/wirejson"
)

// inbound is an incoming request accepted for handling: queued or running.
// It is also the handler's context: the embedded context is cancelled by
// CancelInbound and Close, and Value answers InboundID.
type inbound struct {
	context.Context
	conn   *Conn
	req    *Request
	cancel context.CancelFunc
	batch  *batchReply // the batch it arrived in, or nil
	// byCaller is set when a PushStream's Serve serves the request on its
	// own goroutine, which must return: nothing is left to run on it.
	byCaller bool

	// Guarded by Conn.mu.
	canceled   bool   // CancelInbound was called: the response is suppressed
	handled    bool   // the handler has returned: AfterResponse is too late
	after      func() // what the handler left to run once answered (AfterResponse)
	queued     bool
	prev, next *inbound // links in Conn.queue
}

// Value returns the request's ID for the InboundID key, the request itself
// for servingKey, and defers to the embedded context for any other key.
func (in *inbound) Value(key any) any {
	switch key.(type) {
	case inboundKey:
		return in.req.ID
	case servingKey:
		return in
	}
	return in.Context.Value(key)
}

// inboundQueue is a FIFO of requests waiting for a handler slot. It is
// intrusive, so a cancelled request leaves it in constant time.
type inboundQueue struct {
	head, tail *inbound
	len        int
}

func (q *inboundQueue) push(in *inbound) {
	in.queued, in.prev, in.next = true, q.tail, nil
	if q.tail == nil {
		q.head = in
	} else {
		q.tail.next = in
	}
	q.tail = in
	q.len++
}

func (q *inboundQueue) pop() *inbound {
	in := q.head
	if in != nil {
		q.remove(in)
	}
	return in
}

func (q *inboundQueue) remove(in *inbound) {
	if in.prev == nil {
		q.head = in.next
	} else {
		in.prev.next = in.next
	}
	if in.next == nil {
		q.tail = in.prev
	} else {
		in.next.prev = in.prev
	}
	in.queued, in.prev, in.next = false, nil, nil
	q.len--
}

// batchReply gathers the responses to the requests of one incoming batch,
// which are sent back together as one batch. Guarded by Conn.mu.
type batchReply struct {
	remaining int // accepted requests not yet finished, plus one for the dispatcher
	responses Batch
}

// accept registers an incoming request and starts or queues its handler. It
// returns an immediate error response when the request cannot be accepted
// (its id is in use, or the queue is full). With inline set and a handler
// slot free, it takes the slot and returns the request for the caller to
// serve on its own goroutine (then finishing with c.served).
func (c *Conn) accept(req *Request, batch *batchReply, inline bool) (run *inbound, reject *Response) {
	ctx, cancel := context.WithCancel(context.Background())
	in := &inbound{Context: ctx, conn: c, req: req, cancel: cancel, batch: batch}
	c.mu.Lock()
	var refusal *Error
	switch _, dup := c.inbound.get(req.ID.raw); {
	case c.closing:
	case dup:
		refusal = NewError(CodeInvalidRequest, "request id %s is already in use by a request that has not been answered yet", req.ID)
	case c.running >= c.maxInFlight && c.queue.len >= c.maxQueued:
		refusal = NewError(CodeServerBusy, "server busy: %d requests are running and %d are waiting; retry later", c.running, c.queue.len)
	default:
		c.inbound.put(req.ID.raw, in)
		if batch != nil {
			batch.remaining++
		}
		if c.running >= c.maxInFlight {
			c.queue.push(in)
			c.mu.Unlock()
			return nil, nil
		}
		c.running++
		if inline {
			c.mu.Unlock()
			return in, nil
		}
		c.startLocked(in) // unlocks
		return nil, nil
	}
	c.mu.Unlock()
	cancel()
	if refusal == nil {
		return nil, nil
	}
	return nil, &Response{ID: req.ID, Error: refusal}
}

// startLocked runs in, which holds a handler slot, on an idle worker if one
// is waiting, else on a new one. c.mu is held; it is unlocked on return.
func (c *Conn) startLocked(in *inbound) {
	if c.idle > 0 {
		c.idle--
		handoff := c.handoff
		c.mu.Unlock()
		handoff <- in // buffered beyond the workers waiting: never blocks
		return
	}
	c.mu.Unlock()
	go c.work(in)
}

// work serves in, then queued requests, then what it is handed while it
// waits as an idle worker; it ends when nothing came for idleWorkerLinger.
// What a handler left to run once answered it runs after giving up the
// handler slot, so a long one holds up no other request.
func (c *Conn) work(in *inbound) {
	var linger *time.Timer
	for in != nil {
		after := c.serve(in)
		if after == nil {
			in = c.nextInbound(&linger, true)
			continue
		}
		c.served()
		after()
		in = c.nextInbound(&linger, false)
	}
	if linger != nil {
		linger.Stop()
	}
}

// served finishes a request served inline (see accept): the handler slot
// goes to the next queued request, if any.
func (c *Conn) served() {
	c.mu.Lock()
	if !c.closing {
		if next := c.queue.pop(); next != nil {
			c.startLocked(next) // the slot passes to next
			return
		}
	}
	c.running--
	finished := c.finishedLocked()
	cause := c.endCause
	c.mu.Unlock()
	if finished {
		c.shutdown(cause)
	}
}

// nextInbound takes the next queued request, or gives up the handler slot
// and waits, as an idle worker, to be handed one; a worker that gave up its
// slot already (slot false) only waits. It returns nil when the
// worker should end: the connection is closing, or nothing came within
// idleWorkerLinger. *linger is the worker's timer, made on first use.
func (c *Conn) nextInbound(linger **time.Timer, slot bool) *inbound {
	c.mu.Lock()
	if slot {
		if !c.closing {
			if in := c.queue.pop(); in != nil {
				c.mu.Unlock()
				return in
			}
		}
		c.running--
	}
	if c.closing || c.readDone || c.idle >= c.maxInFlight {
		// No request can come (or enough workers wait already): end.
		finished := c.finishedLocked()
		cause := c.endCause
		c.mu.Unlock()
		if finished {
			c.shutdown(cause)
		}
		return nil
	}
	c.idle++
	if c.handoff == nil {
		c.handoff = make(chan *inbound, c.maxInFlight)
	}
	handoff := c.handoff
	c.mu.Unlock()
	if *linger == nil {
		*linger = time.NewTimer(idleWorkerLinger)
	} else {
		(*linger).Reset(idleWorkerLinger)
	}
	select {
	case in := <-handoff:
		return in
	case <-c.ctx.Done():
		return nil
	case <-(*linger).C:
	}
	c.mu.Lock()
	if c.idle > 0 {
		// Still waiting unclaimed: stop waiting.
		c.idle--
		c.mu.Unlock()
		return nil
	}
	// Every waiting worker has been claimed, this one included: a request
	// is on its way (or there) in handoff.
	c.mu.Unlock()
	select {
	case in := <-handoff:
		return in
	case <-c.ctx.Done():
		return nil
	}
}

// serve runs the handler of one request and sends its response, unless the
// request was cancelled meanwhile or the connection is closing. It returns
// what the handler left to run once answered (AfterResponse), for the
// caller to run once it has freed the request's handler slot.
func (c *Conn) serve(in *inbound) (after func()) {
	defer in.cancel()
	resp := &Response{ID: in.req.ID}
	var encoded bool
	resp.Result, encoded, resp.Error = c.runHandler(in)
	if encoded {
		resp.encoded = resp.Result
	}

	c.mu.Lock()
	in.handled = true
	after = in.after
	answer := !in.canceled && !c.closing
	if answer {
		c.inbound.remove(in.req.ID.raw)
	}
	c.mu.Unlock()

	if in.batch != nil {
		if !answer {
			resp = nil
		}
		c.batchPartDone(in.batch, resp)
		return after
	}
	if !answer {
		return after
	}
	if err := c.writeResponse(in, resp); err != nil && c.ctx.Err() == nil {
		c.logger.Warn("jsonrpc: could not send a response", "method", in.req.Method, "id", in.req.ID, "error", err)
	}
	return after
}

// runHandler calls the handler and turns its outcome into a result or an
// error object; encoded is true when the result is JSON text the Conn
// encoded itself (see Response.encoded). A panic is contained to this
// request.
func (c *Conn) runHandler(in *inbound) (result stdjson.RawMessage, encoded bool, rerr *Error) {
	defer func() {
		if p := recover(); p != nil {
			c.logger.Error("jsonrpc: request handler panicked", "method", in.req.Method, "id", in.req.ID,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			result, encoded, rerr = nil, false, NewError(CodeInternalError, "internal error: handler for %s panicked", in.req.Method)
		}
	}()
	v, err := c.handler.Handle(in, in.req)
	if err != nil {
		return nil, false, c.errorObject(in.req, err)
	}
	raw, encoded, err := marshalResult(v)
	if err != nil {
		c.logger.Error("jsonrpc: cannot encode a handler's result", "method", in.req.Method, "id", in.req.ID, "error", err)
		return nil, false, NewError(CodeInternalError, "internal error: cannot encode the result of %s: %v", in.req.Method, err)
	}
	return raw, encoded, nil
}

// errorObject converts a handler's error into the error object to send.
func (c *Conn) errorObject(req *Request, err error) *Error {
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Code: CodeInternalError, Message: err.Error()}
	}
	if len(e.Data) > 0 && !jsontext.Value(e.Data).IsValid() {
		c.logger.Error("jsonrpc: a handler's error data is not valid JSON; sending the error without it",
			"method", req.Method, "id", req.ID)
		return &Error{Code: e.Code, Message: e.Message}
	}
	return e
}

// marshalResult encodes a handler's result for the wire. encoded is true
// when it encoded v itself, or v is wirejson.Encoded: json.Marshal writes
// strict, compact JSON, which needs no second check when the response is
// written, and wirejson.Encoded is such JSON by its maker's word (the
// server's hand-encoded task results).
func marshalResult(v any) (raw stdjson.RawMessage, encoded bool, err error) {
	switch r := v.(type) {
	case wirejson.Encoded:
		return r.Text(), true, nil
	case stdjson.RawMessage:
		raw = r
	case jsontext.Value:
		raw = stdjson.RawMessage(r)
	default:
		raw, err = json.Marshal(v)
		return raw, err == nil, err
	}
	switch {
	case raw == nil:
		return stdjson.RawMessage("null"), true, nil
	case !jsontext.Value(raw).IsValid():
		return nil, false, fmt.Errorf("the raw result is not valid JSON")
	}
	return raw, false, nil
}

// handleNotification runs the handler of a notification on the goroutine
// taking it in.
func (c *Conn) handleNotification(req *Request) {
	defer func() {
		if p := recover(); p != nil {
			c.logger.Error("jsonrpc: notification handler panicked", "method", req.Method,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	if _, err := c.handler.Handle(c.ctx, req); err != nil {
		c.logger.Debug("jsonrpc: notification handler failed", "method", req.Method, "error", err)
	}
}

// CancelInbound cancels the incoming request with id: a queued request will
// not run; a running handler's context is cancelled; either way no response
// is sent. It reports false, doing nothing, when no request with that id is
// queued or running (unknown, or already answered).
func (c *Conn) CancelInbound(id ID) bool {
	c.mu.Lock()
	in, _ := c.inbound.get(id.raw)
	if in == nil {
		c.mu.Unlock()
		return false
	}
	c.inbound.remove(in.req.ID.raw)
	in.canceled = true
	wasQueued := in.queued
	if wasQueued {
		c.queue.remove(in)
	}
	c.mu.Unlock()
	in.cancel()
	if wasQueued && in.batch != nil {
		c.batchPartDone(in.batch, nil)
	}
	return true
}

// dispatchBatch handles an incoming batch, if batches are allowed: responses
// are delivered, notifications handled in order, requests dispatched, and
// invalid elements answered each with its own error; the responses go back
// as one batch once all are done (JSON-RPC 2.0 §6).
func (c *Conn) dispatchBatch(b Batch) {
	if c.allowBatch == nil || !c.allowBatch() {
		c.reply(&Response{ID: NullID, Error: NewError(CodeInvalidRequest, "batches are not supported by the negotiated protocol version")})
		return
	}
	br := &batchReply{remaining: 1}
	for _, m := range b {
		var reject *Response
		switch m := m.(type) {
		case *Response:
			c.deliver(m)
		case *Request:
			if m.IsNotification() {
				c.handleNotification(m)
			} else {
				_, reject = c.accept(m, br, false)
			}
		case *DecodeError:
			reject = c.rejection(m)
		}
		if reject != nil {
			c.mu.Lock()
			br.responses = append(br.responses, reject)
			c.mu.Unlock()
		}
	}
	c.batchPartDone(br, nil)
}

// batchPartDone records one finished part of a batch (resp nil: nothing to
// send for it) and sends the batch reply when it was the last.
func (c *Conn) batchPartDone(b *batchReply, resp *Response) {
	c.mu.Lock()
	if resp != nil {
		b.responses = append(b.responses, resp)
	}
	b.remaining--
	send := b.remaining == 0 && len(b.responses) > 0
	c.mu.Unlock()
	if send {
		c.reply(b.responses)
	}
}
