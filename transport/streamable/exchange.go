package streamable

import (
	"context"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// exchange is the transport.Exchange of a request whose response st awaits:
// the stream that answers the POST that carried it.
type exchange struct{ st *respStream }

// Context returns the context of the POST that carried the request.
func (x exchange) Context() context.Context { return x.st.reqCtx }

// CloseStream ends the connection of a legacy request's stream, which the
// client resumes with GET and Last-Event-ID.
func (x exchange) CloseStream() bool { return x.st.release() }

// Refuse answers the POST with auth.WriteError's refusal of err (403 with
// the step-up challenge for an *auth.InsufficientScopeError) while nothing
// else has been sent on it.
func (x exchange) Refuse(err error) bool { return x.st.refuse(err) }

// Exchange returns the exchange of the session's request id while it awaits
// its response (see transport.Exchanges).
func (s *session) Exchange(id jsonrpc.ID) transport.Exchange {
	st := s.pendingStream(id)
	if st == nil {
		return nil
	}
	return exchange{st: st}
}

// refuse arranges for the stream's only request to be answered with
// auth.WriteError's refusal of err instead of its JSON-RPC response, when
// err is one and the stream has sent nothing yet. The refusal is written
// when the response arrives, so the request is over (its id free for reuse)
// by the time the client reads the refusal; until then nothing else is
// sent. It reports whether the stream took the refusal.
func (st *respStream) refuse(err error) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.refusal != nil {
		return true
	}
	if st.complete || st.get || st.batch || st.awaiting != 1 || st.mode != modeUndecided || st.w == nil || !auth.IsRefusal(err) {
		return false
	}
	st.refusal = err
	st.mode = modeJSON
	return true
}

// writeRefusalLocked answers with the refusal that refuse took, in place of
// the response, and completes the stream.
func (st *respStream) writeRefusalLocked() error {
	defer st.completeLocked()
	if st.w == nil {
		return st.goneLocked()
	}
	auth.WriteError(st.w, st.refusal)
	return nil
}
