package streamable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport/sse"
)

// errStreamEnded is the error of a message sent to a response stream that
// has already delivered its response or lost its client for good.
var errStreamEnded = errors.New("streamable: the response stream has ended")

// streamMode is how a response stream answers: undecided until it has
// either the final response (a JSON body) or something to send first (an
// SSE stream).
type streamMode uint8

const (
	modeUndecided streamMode = iota
	modeJSON
	modeSSE
)

// respStream carries the messages of one HTTP response: the answer to a POST
// (one request, or the requests of a batch), or a legacy session's GET
// stream. It is answered with JSON when the response comes before anything
// else, and with an SSE stream otherwise. Legacy streams are resumable:
// their events carry IDs "<stream>_<index>" and are kept in the EventStore.
type respStream struct {
	h    *Handler
	sess *session // nil for a modern request
	num  int64    // the stream's number in the session (0 is the GET stream)
	get  bool     // the GET stream, which ends only with its session
	// cancel, for a modern request, cancels the request when the client
	// can no longer be written to.
	cancel context.CancelCauseFunc
	// reqCtx is the context of the POST the stream answers (nil for the
	// GET stream), whose values the handlers of its requests see.
	reqCtx context.Context
	// inline is set on the stream of a request served on its POST's own
	// goroutine (see StreamClosers): its response cannot be released.
	inline bool

	mu       sync.Mutex
	w        http.ResponseWriter // the client connection, nil while none is attached
	rc       *http.ResponseController
	mode     streamMode
	batch    bool              // a batch: the JSON answer is an array
	awaiting int               // responses still due
	held     []jsonrpc.Message // a batch's responses held for the JSON array
	index    uint64            // the last event index used
	first    uint64            // the index of the stream's priming event, before its first message (see getBase)
	complete bool              // everything due was delivered, or the stream was ended
	refusal  error             // the HTTP refusal to answer with in place of the response (see refuse)
	beat     sse.Heartbeat     // comments on an attached SSE connection while it is quiet
	beating  bool              // beat is set up (on the first switch to SSE)
	done     chan struct{}     // closed on completion
	kick     chan struct{}     // closed to release the attached connection's handler; made by wait or attach
}

// newRespStream returns a stream awaiting n responses, attached to w.
func newRespStream(h *Handler, sess *session, w http.ResponseWriter, n int, batch bool) *respStream {
	// The controller, the heartbeat and the kick channel are made when
	// needed: a response answered with JSON, as a plain call's is, needs
	// none of them, which saves 3 allocations per call
	// (BenchmarkPlainCallVsBare).
	return &respStream{h: h, sess: sess, w: w, awaiting: n, batch: batch, done: make(chan struct{})}
}

// resumable reports whether the stream's events get IDs and are stored.
func (st *respStream) resumable() bool { return st.sess != nil }

// deliver sends one message on the stream; response reports whether it is
// one of the responses the stream awaits. It returns errStreamEnded when
// the stream has completed, and an error when a modern client can no longer
// be written to. On a legacy stream a message the client cannot take now is
// stored for resumption, or dropped when the stream has no event ID yet.
func (st *respStream) deliver(msg jsonrpc.Message, response bool) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("streamable: encoding a message for the client: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.complete {
		return errStreamEnded
	}
	final := false
	if response && !st.get {
		st.awaiting--
		final = st.awaiting <= 0
	}
	if st.refusal != nil {
		// A refused request's response and anything sent before it give
		// way to the refusal.
		if !final {
			return nil
		}
		return st.writeRefusalLocked()
	}
	if final {
		defer st.completeLocked()
	}
	switch {
	case st.mode == modeSSE:
		return st.eventLocked(data)
	case response && st.batch:
		st.held = append(st.held, msg)
		if final {
			return st.writeBatchLocked()
		}
		return nil
	case response && final:
		status := http.StatusOK
		if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error != nil && st.sess == nil {
			status = errorStatus(resp.Error.Code)
		}
		return st.writeBodyLocked(status, data)
	}
	// Something comes before the response: switch to SSE.
	if st.w == nil {
		return st.goneLocked()
	}
	st.startSSELocked(true)
	if err := st.flushHeldLocked(); err != nil {
		return err
	}
	return st.eventLocked(data)
}

// writeBatchLocked answers a batch with the JSON array of its responses.
func (st *respStream) writeBatchLocked() error {
	if len(st.held) == 0 {
		return st.writeBodyLocked(http.StatusNoContent, nil)
	}
	data, err := jsonrpc.EncodeMessage(jsonrpc.Batch(st.held))
	st.held = nil
	if err != nil {
		return fmt.Errorf("streamable: encoding a batch response: %w", err)
	}
	return st.writeBodyLocked(http.StatusOK, data)
}

// writeBodyLocked answers with a JSON body (none for 204), within
// HandlerOptions.WriteTimeout as an SSE write is: the body is written in
// the session's write turn, so a client that does not read it would
// otherwise hold every later message of the session.
func (st *respStream) writeBodyLocked(status int, data []byte) error {
	st.mode = modeJSON
	if st.w == nil {
		return st.goneLocked()
	}
	if status != http.StatusNoContent {
		h := st.w.Header()
		h.Set("Content-Type", mediaJSON)
		h.Set("Content-Length", strconv.Itoa(len(data)))
	}
	st.w.WriteHeader(status)
	if len(data) == 0 {
		return nil
	}
	if d := st.h.opts.WriteTimeout; d > 0 {
		rc := http.NewResponseController(st.w)
		rc.SetWriteDeadline(time.Now().Add(d)) // ErrNotSupported leaves the write unbounded
		defer rc.SetWriteDeadline(time.Time{})
	}
	if _, err := st.w.Write(data); err != nil {
		return st.lostLocked(err)
	}
	return nil
}

// startSSELocked sends the headers of an SSE response. With prime, a legacy
// session at protocol 2025-11-25 or later also gets the priming event: the
// current event ID with empty data, and the retry interval.
func (st *respStream) startSSELocked(prime bool) {
	st.mode = modeSSE
	if st.rc == nil {
		st.rc = http.NewResponseController(st.w)
	}
	if !st.beating {
		st.beating = true
		st.beat = sse.NewHeartbeat(st.h.opts.KeepAlive, st.ping)
	}
	h := st.w.Header()
	h.Set("Content-Type", mediaSSE)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	st.w.WriteHeader(http.StatusOK)
	var err error
	if prime && st.sess != nil && st.sess.primes() {
		err = st.writeLocked(sse.Event{ID: eventID(st.num, st.index), Retry: int(st.h.opts.RetryInterval.Milliseconds())})
	} else if err = st.rc.Flush(); err == nil {
		st.beat.Beat()
	}
	if err != nil {
		st.lostLocked(err)
	}
}

// flushHeldLocked sends held batch responses as events.
func (st *respStream) flushHeldLocked() error {
	held := st.held
	st.held = nil
	for _, m := range held {
		d, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return fmt.Errorf("streamable: encoding a message for the client: %w", err)
		}
		if err := st.eventLocked(d); err != nil {
			return err
		}
	}
	return nil
}

// eventLocked sends data as the stream's next event. A resumable stream
// stores the event first, so that a client not attached now can fetch it.
func (st *respStream) eventLocked(data []byte) error {
	var ev sse.Event
	if st.resumable() {
		st.index++
		if err := st.h.opts.EventStore.Append(context.Background(), st.sess.id, st.num, st.index, data); err != nil {
			st.h.opts.Logger.Warn("streamable: could not store an event; a client resuming before it will miss it",
				"session", st.sess.id, "stream", st.num, "error", err)
		}
		ev.ID = eventID(st.num, st.index)
	}
	if st.w == nil {
		return st.goneLocked()
	}
	ev.Data = data
	if err := st.writeLocked(ev); err != nil {
		return st.lostLocked(err)
	}
	return nil
}

// writeLocked writes and flushes one event.
func (st *respStream) writeLocked(ev sse.Event) error {
	return st.sendLocked(func(w io.Writer) error { return sse.WriteEvent(w, ev) })
}

// ping writes a comment to the attached SSE connection after a quiet
// period (HandlerOptions.KeepAlive), so that proxies keep it open.
func (st *respStream) ping() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.w == nil || st.complete || st.mode != modeSSE {
		return
	}
	if err := st.sendLocked(sse.WriteComment); err != nil {
		st.lostLocked(err)
	}
}

// sendLocked writes to the attached SSE connection with write and flushes
// it, within HandlerOptions.WriteTimeout: a client that stops reading
// cannot hold the stream, and everyone sending on it, for longer.
func (st *respStream) sendLocked(write func(io.Writer) error) error {
	if d := st.h.opts.WriteTimeout; d > 0 {
		st.rc.SetWriteDeadline(time.Now().Add(d)) // ErrNotSupported leaves writes unbounded
		defer st.rc.SetWriteDeadline(time.Time{})
	}
	if err := write(st.w); err != nil {
		return err
	}
	if err := st.rc.Flush(); err != nil {
		return err
	}
	st.beat.Beat()
	return nil
}

// lostLocked handles a failed write: the connection is detached. A legacy
// client may resume, so the message is not lost to it; a modern request is
// cancelled and the error returned.
func (st *respStream) lostLocked(err error) error {
	st.w, st.rc = nil, nil
	st.beat.Stop()
	if st.kick != nil { // release the connection's handler: the client resumes
		close(st.kick)
		st.kick = nil
	}
	if st.resumable() {
		return nil
	}
	err = fmt.Errorf("streamable: writing to the client: %w", err)
	if st.cancel != nil {
		st.cancel(err)
	}
	return err
}

// goneLocked is the result of a message for a client that is not attached:
// nil on a legacy stream (stored, or dropped when the client left before the
// stream had an event ID to resume from), errStreamEnded for a modern one.
func (st *respStream) goneLocked() error {
	if st.resumable() {
		return nil
	}
	return errStreamEnded
}

// completeLocked marks the stream complete, releasing the waiting handler,
// and removes it from its session.
func (st *respStream) completeLocked() {
	if st.complete {
		return
	}
	st.complete = true
	st.beat.Stop()
	close(st.done)
	if st.sess != nil && !st.get {
		st.sess.streamDone(st)
	}
}

// release ends the HTTP response of an attached stream without completing
// the stream, after an event that gives the client the ID to resume from
// and the retry interval. It reports whether a connection was attached;
// a stream whose request runs on its POST's goroutine is never released.
func (st *respStream) release() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.w == nil || st.complete || !st.resumable() || st.refusal != nil || st.inline {
		return false
	}
	if st.mode != modeSSE {
		st.startSSELocked(false)
	}
	if st.w != nil {
		if err := st.writeLocked(sse.Event{ID: eventID(st.num, st.index), Retry: int(st.h.opts.RetryInterval.Milliseconds())}); err != nil {
			st.lostLocked(err)
		}
	}
	st.w, st.rc = nil, nil
	if st.kick != nil {
		close(st.kick)
		st.kick = nil
	}
	return true
}

// end completes the stream without its remaining responses (the session
// ended, or the server closed the stream).
func (st *respStream) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.completeLocked()
}

// endGone ends the stream as end does, for a session that ended for the
// cluster (see endDeleted): a POST stream that has sent nothing yet first
// answers 404 Session not found, as any request of that session now is.
func (st *respStream) endGone() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.complete && !st.get && st.mode == modeUndecided && st.w != nil {
		st.mode = modeJSON
		writeError(st.w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.NewError(CodeSessionNotFound, "Session not found"))
	}
	st.completeLocked()
}

// abandon stops awaiting one response: its request was cancelled, so none
// will come. When nothing else is due the stream completes; an undecided
// stream then answers 204, or the other responses of a batch, and a
// refused one its refusal.
func (st *respStream) abandon() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.complete {
		return
	}
	st.awaiting--
	if st.awaiting > 0 {
		return
	}
	if st.refusal != nil {
		st.writeRefusalLocked()
		return
	}
	if st.mode == modeUndecided {
		st.writeBatchLocked()
	}
	st.completeLocked()
}

// attach connects a client to a legacy stream. With replay, the stored
// events after index are sent first (a resumption); without, the stream
// starts with a priming event (a fresh GET stream). Live events follow
// until the stream completes. It fails with 409 when another connection is
// attached, and with 400 when the events to replay are no longer stored;
// the caller answers with that status.
func (st *respStream) attach(w http.ResponseWriter, replay bool, after uint64) (status int, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.w != nil && !st.complete {
		return http.StatusConflict, fmt.Errorf("stream %d is already connected; close that connection first", st.num)
	}
	var events [][]byte
	if replay {
		if events, err = st.h.opts.EventStore.After(context.Background(), st.sess.id, st.num, after); err != nil {
			return http.StatusBadRequest, fmt.Errorf("cannot resume stream %d after event %d: %w", st.num, after, err)
		}
	}
	st.w, st.rc, st.kick = w, http.NewResponseController(w), make(chan struct{})
	st.startSSELocked(!replay)
	for i, data := range events {
		if st.w == nil {
			break
		}
		if err := st.writeLocked(sse.Event{ID: eventID(st.num, after+uint64(i)+1), Data: data}); err != nil {
			st.lostLocked(err)
		}
	}
	if st.w != nil && !st.complete {
		st.flushHeldLocked()
	}
	if st.complete {
		st.w, st.rc = nil, nil
	}
	return 0, nil
}

// issued reports whether the stream has issued the event with index (its
// priming event's, or a message's) here.
func (st *respStream) issued(index uint64) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.first <= index && index <= st.index
}

// detach disconnects w from the stream if it is still the attached one.
func (st *respStream) detach(w http.ResponseWriter) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.w == w {
		st.w, st.rc = nil, nil
		st.beat.Stop()
	}
}

// wait blocks the handler that owns w until the stream completes, ctx (the
// client's request) ends or the server releases the connection, then
// detaches w. A connection released before wait began (between attach and
// wait) returns at once: its kick has already been closed and forgotten.
func (st *respStream) wait(ctx context.Context, w http.ResponseWriter) {
	st.mu.Lock()
	if st.w != w {
		st.mu.Unlock()
		return
	}
	if st.complete {
		// Answered already (served on this goroutine): no need to wait,
		// nor to make the request context's Done channel.
		st.w, st.rc = nil, nil
		st.beat.Stop()
		st.mu.Unlock()
		return
	}
	if st.kick == nil && st.sess != nil {
		st.kick = make(chan struct{})
	}
	kick := st.kick
	st.mu.Unlock()
	select {
	case <-st.done:
	case <-ctx.Done():
	case <-kick:
	}
	st.detach(w)
}

// eventID formats the ID of event index of stream num.
func eventID(num int64, index uint64) string {
	return strconv.FormatInt(num, 10) + "_" + strconv.FormatUint(index, 10)
}

// parseEventID reverses eventID.
func parseEventID(id string) (num int64, index uint64, ok bool) {
	a, b, found := strings.Cut(id, "_")
	if !found {
		return 0, 0, false
	}
	n, err1 := strconv.ParseInt(a, 10, 64)
	i, err2 := strconv.ParseUint(b, 10, 64)
	return n, i, err1 == nil && err2 == nil && n >= 0
}
