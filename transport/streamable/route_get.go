package streamable

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/transport/sse"
)

// serveRoutedGet serves the GET stream of a session whose messages are
// routed: its events are the session's ToClient box, numbered as the box
// numbers them, so a client that lost the stream resumes it on any
// Handler with Last-Event-ID "0_<n>", even after the Handler that held it
// died. after is that n, or -1 for a fresh stream, which starts after the
// box's newest message. While the stream is open the Handler records, in
// the store, that it holds it, and delivers each message a bus signal
// announces.
func (h *Handler) serveRoutedGet(w http.ResponseWriter, r *http.Request, s *session, after int64) {
	rt := h.router
	ctx := r.Context()
	st := s.openGet()
	if st == nil {
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.NewError(CodeSessionNotFound, "Session not found"))
		return
	}
	// Subscribe before reading where the box is: no message falls between.
	sub, err := rt.bus.Subscribe(ctx, boxSignal(s.id, sessions.ToClient))
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, jsonrpc.NewError(codeTransport, "cannot follow the session's messages: %v", err))
		return
	}
	defer sub.Close()
	last, err := rt.log.Last(ctx, s.id, sessions.ToClient)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, jsonrpc.NewError(codeTransport, "cannot reach the session store: %v", err))
		return
	}
	cursor, resumed := last, after >= 0
	if resumed {
		if uint64(after) > last {
			refuse(w, http.StatusBadRequest, "Last-Event-ID \"0_%d\" names no event of this session's GET stream (its newest is 0_%d)", after, last)
			return
		}
		cursor = uint64(after)
		if _, err := rt.log.Read(ctx, s.id, sessions.ToClient, cursor); errors.Is(err, sessions.ErrTrimmed) {
			refuse(w, http.StatusBadRequest, "cannot resume the GET stream after event 0_%d: %v; open it afresh without Last-Event-ID", after, err)
			return
		}
	}
	// Recorded before the client learns the stream is open, so that a
	// request sent to it then finds the record.
	if err := rt.log.SetReader(ctx, s.id, rt.instance, h.sessions.now().Add(readerLease)); err != nil {
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, jsonrpc.NewError(codeTransport, "cannot reach the session store: %v", err))
		return
	}
	kick, err := st.attachAt(w, cursor, !resumed)
	if err != nil {
		// Another connection holds the stream here: the record is its.
		refuse(w, http.StatusConflict, "%v", err)
		return
	}
	rt.noteAttached(s, h.sessions.now())
	defer st.detach(w)
	defer func() {
		// Before the stream is detached, so that it counts as held here
		// throughout (see heldLately); a stream that ended with its session
		// is not noted.
		rt.noteAttached(s, h.sessions.now())
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
		defer cancel()
		if err := rt.log.SetReader(ctx, s.id, rt.instance, time.Time{}); err != nil {
			h.opts.Logger.Warn("streamable: could not record that a GET stream closed; requests to its client wait for the record to lapse",
				"session", s.id, "error", err)
		}
	}()
	renew := time.NewTicker(readerLease / 3)
	defer renew.Stop()
	retry := time.NewTimer(readRetry)
	retry.Stop()
	defer retry.Stop()
	for {
		msgs, err := rt.log.Read(ctx, s.id, sessions.ToClient, cursor)
		if errors.Is(err, sessions.ErrTrimmed) {
			// The stream fell more than sessions.KeepMessages behind: what
			// was dropped is lost to it, as it would be to a resuming client.
			h.opts.Logger.Warn("streamable: a GET stream fell behind its session's messages; the oldest were dropped", "session", s.id)
			cursor, err = rt.log.Last(ctx, s.id, sessions.ToClient)
		}
		if err != nil && ctx.Err() == nil {
			h.opts.Logger.Warn("streamable: could not read a session's messages for its GET stream; retrying", "session", s.id, "error", err)
			retry.Reset(readRetry)
		}
		for _, m := range msgs {
			if !st.routedEvent(w, m.Seq, m.Data) {
				return
			}
			cursor = m.Seq
		}
		select {
		case _, ok := <-sub.Signals():
			if !ok {
				return // the bus closed: the Handler is going away
			}
		case <-retry.C:
		case <-renew.C:
			rt.noteAttached(s, h.sessions.now())
			if err := rt.log.SetReader(ctx, s.id, rt.instance, h.sessions.now().Add(readerLease)); err != nil && ctx.Err() == nil {
				h.opts.Logger.Warn("streamable: could not renew the record of a GET stream", "session", s.id, "error", err)
			}
		case <-st.done:
			return
		case <-kick:
			return
		case <-ctx.Done():
			return
		}
	}
}

// attachAt connects a client to a routed GET stream that goes on after
// event 0_<after> of the session's ToClient box; with prime, it starts with
// the priming event. It returns the channel closed to release the
// connection, and fails when another connection is attached or the stream
// has ended.
func (st *respStream) attachAt(w http.ResponseWriter, after uint64, prime bool) (<-chan struct{}, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.complete {
		return nil, fmt.Errorf("the session has ended")
	}
	if st.w != nil {
		return nil, fmt.Errorf("stream %d is already connected; close that connection first", st.num)
	}
	st.index = after
	kick := make(chan struct{})
	st.w, st.rc, st.kick = w, http.NewResponseController(w), kick
	st.startSSELocked(prime)
	return kick, nil
}

// routedEvent sends data as event 0_<seq> to the connection w, and
// reports whether w is still attached and written to.
func (st *respStream) routedEvent(w http.ResponseWriter, seq uint64, data []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.w != w || st.complete {
		return false
	}
	st.index = seq
	if err := st.writeLocked(sse.Event{ID: eventID(st.num, seq), Data: data}); err != nil {
		st.lostLocked(err)
		return false
	}
	return true
}

// routedResumption returns where a routed GET stream starts: -1 for a fresh
// one, n for Last-Event-ID "0_<n>". It reports false for a Last-Event-ID
// naming a POST stream (resumed where it was served) or none at all.
func routedResumption(r *http.Request) (int64, bool) {
	last := r.Header.Get(headerLastEventID)
	if last == "" {
		return -1, true
	}
	num, index, ok := parseEventID(last)
	if !ok || num != 0 || index > 1<<62 {
		return 0, false
	}
	return int64(index), true
}

// noteAttached notes that the session's GET stream is attached here at
// now, unless the session has ended. The stream is noted when it attaches,
// every readerLease/3 while it stays attached, and when its connection
// goes.
func (r *router) noteAttached(s *session, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.mu.Lock()
	ended := s.ended != nil
	s.mu.Unlock()
	if !ended { // an ended session's stream is not kept: stop forgets it
		r.attached[s] = now
	}
}

// heldLately reports whether the session's GET stream was noted attached
// here within readerLease before now. A list change is then kept in the
// session's ToClient box for a client that lost the stream and resumes it
// with Last-Event-ID, here or on another instance, rather than lost: no
// instance holds the stream while the client reconnects. A client that
// resumed on another instance meanwhile is told of such a change twice
// (by that instance and this one), which costs it a second tools/list or
// the like, and only for readerLease after its stream left here. Requests
// to the client are not kept so (see sharedSession.outbound): the reader
// record goes when the stream's connection does, and they fail at once
// with ErrNoStream, for a caller that can ask another way.
func (r *router) heldLately(s *session, now time.Time) bool {
	r.mu.Lock()
	seen, ok := r.attached[s]
	r.mu.Unlock()
	return ok && now.Before(seen.Add(readerLease))
}
