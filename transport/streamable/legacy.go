package streamable

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/sse"
)

// serveLegacyPost serves a POST in the legacy era: an initialize that
// starts a session, or messages for an existing session.
func (h *Handler) serveLegacyPost(w http.ResponseWriter, r *http.Request, p *post) {
	sid := requestHeader(r, headerSessionID)
	if sid == "" {
		if req := p.single(); req != nil && req.Method == mcp.MethodInitialize && !req.IsNotification() {
			h.initialize(w, r, p)
			return
		}
		writeError(w, http.StatusBadRequest, firstID(p), jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"the Mcp-Session-Id header is missing: start a session with initialize, then send the ID it returns with every request"))
		return
	}
	s, err := h.sessions.find(r, sid, checkedByWrite(p))
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, firstID(p), jsonrpc.NewError(codeTransport, "cannot reach the session store: %v", err))
		return
	}
	if s == nil {
		writeError(w, http.StatusNotFound, firstID(p), jsonrpc.NewError(CodeSessionNotFound, "Session not found"))
		return
	}
	defer s.attach()()
	if !checkLegacyVersion(w, r, s, firstID(p)) {
		return
	}
	if p.batch {
		if v := s.negotiated(); !mcp.AllowsBatch(v) {
			writeError(w, http.StatusBadRequest, jsonrpc.NullID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"JSON-RPC batches are only allowed in protocol version %s; this session uses %s: send one message per POST", mcp.Version20250326, v))
			return
		}
	}
	if !authorize(w, r, p) {
		return
	}
	msgs := p.msgs
	if h.router != nil {
		if msgs, err = h.router.inbound(r.Context(), s, msgs); err != nil {
			writeError(w, http.StatusServiceUnavailable, firstID(p), jsonrpc.NewError(codeTransport, "cannot pass a message on to another instance: %v", err))
			return
		}
	}
	if p.requests == 0 {
		s.cancelIn(p.msgs)
		s.push(msgs)
		switch {
		case p.invalid != nil:
			// The spec answers a response the server cannot accept with
			// an HTTP error whose body, if any, is an error with no id.
			writeError(w, http.StatusBadRequest, jsonrpc.NullID, p.invalid.Err)
		case len(p.rejected) > 0:
			writeRejected(w, p.rejected)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	st := newRespStream(h, s, w, p.requests, p.batch)
	st.reqCtx = r.Context()
	// The answers to a batch's invalid elements go out with its responses.
	st.held = p.rejected
	inline := p.single()
	if inline != nil && (!h.servesInline(inline.Method, p.route.name) || len(msgs) != 1 || msgs[0] != jsonrpc.Message(inline)) {
		inline = nil // the router passes on what it does not serve here
	}
	st.inline = inline != nil
	if dup, err := s.register(st, p.msgs); err != nil {
		if errors.Is(err, errDuplicateID) {
			writeError(w, http.StatusBadRequest, dup, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
				"request ID %s is already used by a request of this session still in progress; use a new ID", dup))
			return
		}
		writeError(w, http.StatusNotFound, firstID(p), jsonrpc.NewError(CodeSessionNotFound, "Session not found"))
		return
	}
	// After register: a batch may cancel one of its own requests.
	s.cancelIn(p.msgs)
	if inline != nil {
		s.serve(inline)
	} else {
		s.push(msgs)
	}
	st.wait(r.Context(), w)
}

// initialize starts a legacy session: it mints the session, bound to the
// request's principal, connects the server to it and answers the
// initialize request with the session ID.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, p *post) {
	req := p.single()
	if !authorize(w, r, p) {
		return
	}
	s, err := h.sessions.create(auth.PrincipalFrom(r.Context()), sse.ClientKey(r))
	if err != nil {
		status := http.StatusServiceUnavailable
		switch {
		case errors.Is(err, errTooManyClientSessions):
			status = http.StatusTooManyRequests
		case errors.Is(err, errTooManySessions):
			w.Header().Set("Retry-After", "10")
		}
		writeError(w, status, req.ID, jsonrpc.NewError(codeTransport, "cannot start a session: %v", err))
		return
	}
	s.initID = req.ID
	if err := h.connect(s); err != nil {
		h.sessions.end(s, ErrSessionEnded)
		writeError(w, http.StatusInternalServerError, req.ID, jsonrpc.NewError(jsonrpc.CodeInternalError, "cannot start a session: %v", err))
		return
	}
	if h.router != nil {
		h.router.listen(s, 0)
	}
	defer s.attach()()
	w.Header().Set(headerSessionID, s.id)
	st := newRespStream(h, s, w, 1, false)
	st.reqCtx = r.Context()
	if _, err := s.register(st, p.msgs); err != nil {
		writeError(w, http.StatusServiceUnavailable, req.ID, jsonrpc.NewError(codeTransport, "the session ended before it started: %v", err))
		return
	}
	s.serve(req)
	st.wait(r.Context(), w)
}

// refuseInitialize answers on st an initialize the server refused (resp is
// an error) and ends the session it was to start. The spec assigns a session
// ID only on the response carrying an InitializeResult, so the answer goes
// without Mcp-Session-Id, and no session is left behind to count against
// the client's MaxSessionsPerClient until it idles out: not in the table,
// nor live in the shared store, where the server stored it if it was
// refused after being served (by middleware). While the answer's headers
// are unsent the session ends before the answer goes, so that it is gone
// when the client reads the refusal, even when the server answers on
// another goroutine than the POST's. An answer on an SSE stream (something
// came first) had the session ID in the stream's headers; the session ends
// after it, so that the stream stores no event for a session already gone.
func (s *session) refuseInitialize(ctx context.Context, st *respStream, resp *jsonrpc.Response) error {
	if s.stored.Load() != nil {
		s.deleted.Store(true)
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
		err := s.h.opts.Sessions.End(ctx, s.id, s.principal)
		cancel()
		if err != nil && !errors.Is(err, sessions.ErrNotFound) {
			s.h.opts.Logger.Warn("streamable: could not end a refused initialize's session in the session store; it lives there until it idles out",
				"session", s.id, "error", err)
		}
	}
	if st == nil || !st.withholdSessionID() {
		var err error
		if st != nil {
			err = st.deliver(resp, true)
		}
		s.h.sessions.end(s, ErrSessionEnded)
		return err
	}
	s.streamDone(st) // so that ending the session does not end st unanswered
	s.h.sessions.end(s, ErrSessionEnded)
	return st.deliver(resp, true)
}

// withholdSessionID takes the session ID off the headers of an initialize's
// answer and reports whether they were still unsent.
func (st *respStream) withholdSessionID() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.mode != modeUndecided {
		return false
	}
	if st.w != nil {
		st.w.Header().Del(headerSessionID)
	}
	return true
}

// writeRejected answers a batch that holds no request with the errors that
// answer its invalid elements.
func writeRejected(w http.ResponseWriter, rejected []jsonrpc.Message) {
	body, err := jsonrpc.EncodeMessage(jsonrpc.Batch(rejected))
	if err != nil {
		refuse(w, http.StatusInternalServerError, "encoding the answers to the batch's invalid elements: %v", err)
		return
	}
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// connect hands a new session to the server.
func (h *Handler) connect(s *session) (err error) {
	defer func() {
		if v := recover(); v != nil {
			h.opts.Logger.Error("streamable: panic connecting a session", "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("the server panicked: %v", v)
		}
	}()
	var stream jsonrpc.Stream = s
	if h.opts.Sessions != nil {
		stream = sharedSession{s}
	}
	return h.srv.ConnectSession(h.ctx, stream, transport.SessionInfo{ID: s.id, Principal: s.principal})
}

// serveGet opens a legacy session's GET stream, or resumes a stream with
// Last-Event-ID.
func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, mediaSSE) {
		refuse(w, http.StatusNotAcceptable, "Accept must list %s for GET (it is %q)", mediaSSE, r.Header.Get("Accept"))
		return
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		modernOnly(w, r)
		return
	}
	s, err := h.sessions.find(r, sid, false)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, jsonrpc.NewError(codeTransport, "cannot reach the session store: %v", err))
		return
	}
	if s == nil {
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.NewError(CodeSessionNotFound, "Session not found"))
		return
	}
	defer s.attach()()
	if !checkLegacyVersion(w, r, s, jsonrpc.ID{}) {
		return
	}
	if h.router != nil {
		if after, ok := routedResumption(r); ok {
			h.serveRoutedGet(w, r, s, after)
			return
		}
	}
	st, replay, after := s.openGet(), false, uint64(0)
	if st == nil {
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.NewError(CodeSessionNotFound, "Session not found"))
		return
	}
	if last := r.Header.Get(headerLastEventID); last != "" {
		num, index, ok := parseEventID(last)
		if !ok || num >= s.streamCount() || num != 0 && num < s.firstStream() {
			refuse(w, http.StatusBadRequest, "Last-Event-ID %q names no event of this session here%s", last, s.resumeHint())
			return
		}
		if num != 0 {
			if st = s.stream(num); st == nil {
				// The stream has completed: replay what it stored, then end.
				st = s.finishedStream(num)
			}
		} else if !st.issued(index) {
			// Issued by another Handler's GET stream of the session, or
			// by none: this stream's next events would reuse its IDs.
			refuse(w, http.StatusBadRequest, "Last-Event-ID %q names no event of this session's GET stream here%s", last, s.resumeHint())
			return
		}
		replay, after = true, index
	}
	if status, err := st.attach(w, replay, after); err != nil {
		refuse(w, status, "%v", err)
		return
	}
	st.wait(r.Context(), w)
}

// serveDelete ends a legacy session at the client's request.
func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		modernOnly(w, r)
		return
	}
	if h.opts.Sessions != nil {
		switch ok, err := h.sessions.endShared(r.Context(), sid, auth.PrincipalFrom(r.Context())); {
		case err != nil:
			writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, jsonrpc.NewError(codeTransport, "cannot reach the session store: %v", err))
		case !ok:
			writeError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.NewError(CodeSessionNotFound, "Session not found"))
		default:
			w.WriteHeader(http.StatusNoContent)
		}
		return
	}
	s := h.sessions.lookupOf(sid, auth.PrincipalFrom(r.Context()))
	if s == nil {
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, jsonrpc.NewError(CodeSessionNotFound, "Session not found"))
		return
	}
	h.sessions.end(s, ErrSessionEnded)
	w.WriteHeader(http.StatusNoContent)
}

// checkLegacyVersion checks MCP-Protocol-Version on a request of a legacy
// session. An absent header is accepted (clients before 2025-06-18 send
// none), and so is any supported legacy version, even one other than the
// session negotiated: the spec requires 400 only for an invalid or
// unsupported version (clients SHOULD send the negotiated one, and some
// send an older one), and the session's negotiated version, not the
// header, governs how its requests are served. A modern version is
// refused: that era has no sessions. On failure it has answered 400.
func checkLegacyVersion(w http.ResponseWriter, r *http.Request, s *session, id jsonrpc.ID) bool {
	hv := requestHeader(r, headerProtocolVersion)
	if hv == "" || mcp.IsSupported(hv) && mcp.IsLegacy(hv) {
		return true
	}
	v := s.negotiated()
	if mcp.IsSupported(hv) {
		writeError(w, http.StatusBadRequest, id, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"MCP-Protocol-Version %s has no sessions, but the request carries Mcp-Session-Id of a session that uses %s: "+
				"send the session's version, or drop the session ID and send the request's _meta", hv, v))
		return false
	}
	writeError(w, http.StatusBadRequest, id, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
		"unsupported MCP-Protocol-Version %q; this session uses %s", hv, v))
	return false
}

// firstID returns the ID of the body's first request, for error responses.
func firstID(p *post) jsonrpc.ID {
	if p.batch {
		return jsonrpc.NullID
	}
	switch m := p.msgs[0].(type) {
	case *jsonrpc.Request:
		return m.ID
	case *jsonrpc.Response:
		return m.ID
	}
	return jsonrpc.NullID
}

// cancelledID returns the requestId of a notifications/cancelled.
func cancelledID(params []byte) (jsonrpc.ID, bool) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if err := json.Unmarshal(params, &p); err != nil || !p.RequestID.IsValid() || p.RequestID.IsNull() {
		return jsonrpc.ID{}, false
	}
	return p.RequestID, true
}
