package server

import (
	"context"
	"iter"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// SessionInfo describes a legacy session (2024-11-05 … 2025-11-25): a
// value, which stays valid after the session has ended.
type SessionInfo struct {
	// ID is the session's ID (the Mcp-Session-Id of Streamable HTTP).
	ID string
	// Principal is the identity the transport authenticated for the
	// session, "" when it authenticated none (stdio).
	Principal string
	// ProtocolVersion is the version initialize negotiated.
	ProtocolVersion string
	// ClientInfo and ClientCapabilities are what the client declared in
	// initialize.
	ClientInfo         mcp.Implementation
	ClientCapabilities mcp.ClientCapabilities
	// TakenOver reports a session this instance took over from a shared
	// session store (see SessionHooks.TakeOver): another instance
	// initialized it.
	TakenOver bool
	// Final, in End, reports that the session itself has ended: always
	// for a session of one instance; for a session in a shared store,
	// when the store ended it for every instance (DELETE on any of them,
	// or expiry). It is false when only this instance let its copy go
	// (idle here, or shutting down) and another may take it over.
	Final bool
}

// SessionHooks are called as legacy sessions start and end, over every
// transport, and when a client tells the server about its session. Each
// may be nil. The modern era (2026-07-28) has no sessions: its requests
// call none of them.
type SessionHooks struct {
	// Start is called once a session is initialized: initialize has
	// negotiated its version, and the result is not sent yet, so Start
	// returns before the session's client can make another request. ctx
	// ends with the session. Start must not block; it must not call the
	// client either, which may not talk to the server before it has its
	// initialize result. It may close the session (found by ID in
	// Server.Sessions), to refuse it.
	Start func(ctx context.Context, info SessionInfo)
	// TakeOver is called when this instance takes over a legacy session
	// another instance initialized, from a session store they share
	// (streamable.HandlerOptions.Sessions), before it serves the session's
	// first request here; Start is not called again. It follows the rules
	// of Start. Across a cluster, each session sees Start once, where
	// initialize ran, and TakeOver on each other instance it reaches.
	TakeOver func(ctx context.Context, info SessionInfo)
	// End is called once a session that Start or TakeOver was called for
	// has ended on this instance, for whatever reason (the client left,
	// Close, DELETE, expiry, the transport's shutdown), after that hook
	// has returned; never twice, never at once with it. info.Final tells a
	// session that ended for good from this instance's copy of a shared
	// session, which lives on in the store.
	End func(info SessionInfo)
	// Initialized is called when the client sends
	// notifications/initialized: the session is ready, and the client
	// takes server-to-client requests and change notifications. It runs on
	// a goroutine of its own, so it may call the client (for example
	// r.ListRoots); ctx ends with the session.
	Initialized func(ctx context.Context, r *Request)
	// RootsListChanged is called when the client sends
	// notifications/roots/list_changed, as Initialized is: r.ListRoots
	// reads the new roots.
	RootsListChanged func(ctx context.Context, r *Request)
}

// sessionLife is where a session is in the lifecycle its hooks report. No
// lock is held while a hook runs, so a hook may close the session: End,
// which must follow Start (or TakeOver), then runs when that returns.
type sessionLife struct {
	mu       sync.Mutex
	started  bool // Start or TakeOver was called
	starting bool // it is running
	ended    bool // the session has ended: neither is called any more
}

// Info returns what the session is: its ID, principal, and what
// initialize settled (empty before it). Final is set once the session has
// ended for good.
func (ss *Session) Info() SessionInfo {
	ss.mu.Lock()
	info := SessionInfo{ID: ss.id, Principal: ss.principal, ProtocolVersion: ss.version, ClientInfo: ss.client, ClientCapabilities: ss.caps,
		TakenOver: ss.takenOver}
	ss.mu.Unlock()
	ss.lifeMu.Lock()
	finished := ss.finished
	ss.lifeMu.Unlock()
	sh := ss.shared()
	info.Final = finished && (sh == nil || sh.Deleted())
	return info
}

// Principal returns the identity the transport authenticated for the
// session, "" when none.
func (ss *Session) Principal() string { return ss.principal }

// started calls the Start hook, once the session is initialized.
func (ss *Session) started() { ss.begin(ss.srv.opts.Sessions.Start) }

// begin calls start, the hook that begins the session here (Start or
// TakeOver), unless the session has begun or ended.
func (ss *Session) begin(start func(context.Context, SessionInfo)) {
	if start == nil {
		return
	}
	l := &ss.life
	l.mu.Lock()
	if l.ended || l.started {
		l.mu.Unlock()
		return
	}
	l.started, l.starting = true, true
	l.mu.Unlock()
	start(ss.lifetime(), ss.Info())
	l.mu.Lock()
	l.starting = false
	end := l.ended // the session ended while Start ran: End is due now
	l.mu.Unlock()
	if end {
		ss.callEnd()
	}
}

// ended calls the End hook once the session has ended, if Start or
// TakeOver was called: now, or when that hook returns.
func (ss *Session) ended() {
	if h := ss.srv.opts.Sessions; h.Start == nil && h.TakeOver == nil {
		return // nothing began
	}
	l := &ss.life
	l.mu.Lock()
	l.ended = true
	end := l.started && !l.starting
	l.mu.Unlock()
	if end {
		ss.callEnd()
	}
}

// callEnd calls the End hook, if any.
func (ss *Session) callEnd() {
	if end := ss.srv.opts.Sessions.End; end != nil {
		end(ss.Info())
	}
}

// notified runs the hook of a notification the session received, if any,
// on a goroutine of its own.
func (ss *Session) notified(req *jsonrpc.Request, hook func(context.Context, *Request)) {
	if hook == nil {
		return
	}
	r := ss.notificationRequest(req)
	ctx := ss.handlersContext()
	go hook(ctx, r)
}

// Sessions yields the sessions the server holds now (connections from
// Connect, Run, and the transports' ConnectSession), in no particular
// order: those that have not initialized (yet) too, which have an empty
// ProtocolVersion. A session that ends while the loop runs may still be
// yielded.
func (s *Server) Sessions() iter.Seq[*Session] {
	return func(yield func(*Session) bool) {
		s.hub.mu.Lock()
		live := make([]*Session, 0, len(s.hub.sessions))
		for ss := range s.hub.sessions {
			live = append(live, ss)
		}
		s.hub.mu.Unlock()
		for _, ss := range live {
			if !yield(ss) {
				return
			}
		}
	}
}
