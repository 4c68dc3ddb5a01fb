package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
)

// This file serves legacy sessions kept in a shared sessions.Store
// (HandlerOptions.Sessions): a request naming a session this Handler does
// not hold is served if the store holds it, by taking the session over
// from the stored state; each request of a session asks the store, in one
// round trip, whether it still lives (DELETE on another instance ends it
// here too), a round trip that for a request writing the session (and
// DELETE) is the write itself; and the store expires idle sessions for the
// whole cluster.

// storeTimeout bounds the store calls of the expiry sweep.
const storeTimeout = 10 * time.Second

// expireBatch is how many sessions one store Expire call deletes at most.
const expireBatch = 500

// sharedSession is a session as the server sees it when the Handler shares
// sessions: a transport.SharedSession.
type sharedSession struct{ *session }

// Write implements jsonrpc.Stream: when the Handler routes messages
// between instances, as outbound (route.go) says.
func (s sharedSession) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r := s.h.router; r != nil {
		return s.outbound(ctx, r, msg)
	}
	return s.session.Write(ctx, msg)
}

// Stored implements transport.SharedSession.
func (s sharedSession) Stored() *sessions.Record { return s.stored.Load() }

// Established implements transport.SharedSession.
func (s sharedSession) Established(ctx context.Context, version string, caps, client json.RawMessage) error {
	now := s.h.sessions.now()
	rec := &sessions.Record{ID: s.id, Principal: s.principal, Version: version, Capabilities: caps, ClientInfo: client,
		CreatedAt: now, LastSeen: now}
	if err := s.h.opts.Sessions.Create(ctx, rec); err != nil {
		return fmt.Errorf("streamable: storing session %s: %w", s.id, err)
	}
	s.stored.Store(rec)
	return nil
}

// Deleted implements transport.SharedSession.
func (s sharedSession) Deleted() bool { return s.deleted.Load() }

// endDeleted ends the session here because the store says it ended for
// every instance.
func (t *sessionTable) endDeleted(s *session) {
	s.deleted.Store(true)
	t.end(s, ErrSessionEnded)
}

// noteDeleted marks, among sessions about to end here because they are
// idle here, those the store no longer keeps alive: deleted or ended
// elsewhere meanwhile. A store error leaves a session unmarked.
func (t *sessionTable) noteDeleted(idle []*session) {
	store := t.h.opts.Sessions
	if store == nil || len(idle) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(t.h.ctx, storeTimeout)
	defer cancel()
	for _, s := range idle {
		rec, err := store.Get(ctx, s.id)
		if errors.Is(err, sessions.ErrNotFound) || err == nil && rec.Ended {
			s.deleted.Store(true)
		}
	}
}

// SetLevel implements transport.SharedSession.
func (s sharedSession) SetLevel(ctx context.Context, level string) error {
	return s.change("the log level", func(now time.Time) (*sessions.Record, error) {
		return s.h.opts.Sessions.SetLevel(ctx, s.id, level, now)
	})
}

// Subscribe implements transport.SharedSession.
func (s sharedSession) Subscribe(ctx context.Context, uri string) error {
	return s.change("a subscription", func(now time.Time) (*sessions.Record, error) {
		return s.h.opts.Sessions.Subscribe(ctx, s.id, uri, now)
	})
}

// Unsubscribe implements transport.SharedSession.
func (s sharedSession) Unsubscribe(ctx context.Context, uri string) error {
	return s.change("an unsubscription", func(now time.Time) (*sessions.Record, error) {
		return s.h.opts.Sessions.Unsubscribe(ctx, s.id, uri, now)
	})
}

// change makes a write to the session in the store and keeps the record it
// returns. The write is the only store call of its request (see
// checkedByWrite): when it finds the session ended for the cluster, the
// session ends here, and the request's POST, if it has sent nothing yet,
// is answered 404 as a request of an ended session is. Writes of one
// session here go one at a time: two racing could otherwise keep the older
// record last, and the session would miss, until its next request, a
// subscription it made.
func (s sharedSession) change(what string, write func(now time.Time) (*sessions.Record, error)) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	rec, err := write(s.h.sessions.now())
	switch {
	case errors.Is(err, sessions.ErrNotFound):
		s.h.sessions.endDeleted(s.session)
		return fmt.Errorf("streamable: session %s has ended: %w", s.id, ErrSessionEnded)
	case err != nil:
		return fmt.Errorf("streamable: storing %s of session %s: %w", what, s.id, err)
	}
	s.stored.Store(rec)
	return nil
}

// checkedByWrite reports whether a POST to a session is one request whose
// handling writes the session in the store (logging/setLevel,
// resources/subscribe and unsubscribe: see transport.SharedSession). That
// write checks, in its one round trip, that the session lives, so a
// Handler that holds the session serves the request without asking the
// store first.
func checkedByWrite(p *post) bool {
	req := p.single()
	if req == nil || req.IsNotification() {
		return false
	}
	switch req.Method {
	case mcp.MethodLoggingSetLevel, mcp.MethodResourcesSubscribe, mcp.MethodResourcesUnsubscribe:
		return true
	}
	return false
}

// touchEvery is how stale a session's LastSeen may be in the store before
// a request writes it: a quarter of the idle timeout, so a session in use
// is written a few times per timeout, not on every request.
func (t *sessionTable) touchEvery() time.Duration {
	if idle := t.h.opts.SessionIdleTimeout; idle > 0 {
		return idle / 4
	}
	return time.Duration(1<<63 - 1) // sessions never expire: LastSeen need not move
}

// find returns the live session with the ID if the principal of r started
// it, or nil. Without a shared store that is the table's; with one, the
// store says, in one round trip, whether the session lives, and a session
// the table lacks is taken over from it. With checkedByWrite (the request
// writes the session, which checks it), a session the table holds is
// returned without asking the store. The error is the store's.
func (t *sessionTable) find(r *http.Request, id string, checkedByWrite bool) (*session, error) {
	principal := auth.PrincipalFrom(r.Context())
	store := t.h.opts.Sessions
	if store == nil {
		return t.lookupOf(id, principal), nil
	}
	if checkedByWrite {
		if s := t.lookupOf(id, principal); s != nil {
			return s, nil
		}
	}
	if !wellFormedSessionID(id) {
		return nil, nil
	}
	local := t.lookup(id)
	rec, err := store.Touch(r.Context(), id, t.now(), t.touchEvery())
	switch {
	case errors.Is(err, sessions.ErrNotFound) || err == nil && rec.Ended:
		if local != nil {
			t.endDeleted(local) // deleted or expired on another instance
		}
		return nil, nil
	case err != nil:
		return nil, err
	case rec.Principal != principal:
		return nil, nil
	case local != nil && t.lookup(id) == local:
		local.stored.Store(rec)
		return local, nil
	}
	// The table lacks the session, or dropped its copy (idle here) while
	// the Touch was in flight: the session lives, so it is taken over
	// afresh.
	return t.adopt(r.Context(), rec)
}

// adopt makes the table hold a session another instance started, from its
// stored state, and connects the server to it: the server serves it as the
// record says, without a new initialize. Taken-over sessions have no
// client and so count against no session limit, which bound the sessions
// started here; the sweep drops them once idle here (see keepTakenOver).
func (t *sessionTable) adopt(ctx context.Context, rec *sessions.Record) (*session, error) {
	var routedAfter uint64
	if r := t.h.router; r != nil {
		// Answers and cancels meant for this Handler come after this.
		last, err := r.log.Last(ctx, rec.ID, sessions.ToServer)
		if err != nil {
			return nil, err
		}
		routedAfter = last
	}
	s := newSession(t.h, rec.ID, rec.Principal, "")
	s.version = rec.Version
	s.stored.Store(rec)
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		return nil, ErrShutdown
	}
	if held := t.m[rec.ID]; held != nil { // another request took it over first
		t.mu.Unlock()
		held.stored.Store(rec)
		return held, nil
	}
	t.insertLocked(s)
	t.mu.Unlock()
	if err := t.h.connect(s); err != nil {
		t.end(s, ErrSessionEnded)
		return nil, err
	}
	if r := t.h.router; r != nil {
		r.listen(s, routedAfter)
	}
	return s, nil
}

// endShared ends the session with the ID, if principal started it, for
// every instance (DELETE): it reports false when there is no such session.
func (t *sessionTable) endShared(ctx context.Context, id, principal string) (bool, error) {
	// One round trip: End itself refuses a missing or ended session, and
	// another principal's.
	switch err := t.h.opts.Sessions.End(ctx, id, principal); {
	case errors.Is(err, sessions.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	if s := t.lookup(id); s != nil {
		t.endDeleted(s)
	}
	if r := t.h.router; r != nil {
		r.announceEnded(ctx, id)
	}
	t.forgetMessages(ctx, id)
	return true, nil
}

// sweepStore keeps the store's view of this table's sessions current and
// expires idle sessions for the whole cluster: a session with a stream or
// request open here counts as in use; one the store no longer holds ends
// here too, with its streams (a GET stream open here after DELETE on
// another instance ends within a janitor tick when no routed signal has
// ended it already: see announceEnded). Without an idle timeout
// the check only reads, and only the ended sessions expire (see
// sessions.EndedLastSeen), so that DELETE leaves no record for good.
func (t *sessionTable) sweepStore(now time.Time) {
	store := t.h.opts.Sessions
	if store == nil {
		return
	}
	idle := t.h.opts.SessionIdleTimeout
	ctx, cancel := context.WithTimeout(t.h.ctx, storeTimeout)
	defer cancel()
	every := t.touchEvery()
	t.mu.Lock()
	var busy []*session
	for _, s := range t.m {
		if !s.idleSince(now) && s.stored.Load() != nil {
			busy = append(busy, s)
		}
	}
	t.mu.Unlock()
	for _, s := range busy {
		rec, err := store.Touch(ctx, s.id, now, every)
		switch {
		case errors.Is(err, sessions.ErrNotFound) || err == nil && rec.Ended:
			t.endDeleted(s)
		case err != nil:
			t.h.opts.Logger.Warn("streamable: could not mark a session in use in the session store", "session", s.id, "error", err)
		default:
			s.stored.Store(rec)
		}
	}
	// LastSeen lags by up to every: a session expires once idle for at
	// least the timeout, never before.
	cutoff := sessions.ExpireEndedBefore
	if idle > 0 {
		cutoff = now.Add(-idle - every)
	}
	for {
		ids, err := store.Expire(ctx, cutoff, expireBatch)
		if err != nil {
			t.h.opts.Logger.Warn("streamable: could not expire idle sessions in the session store", "error", err)
			return
		}
		for _, id := range ids {
			if s := t.lookup(id); s != nil {
				t.endDeleted(s)
			}
			t.forgetMessages(ctx, id)
		}
		if len(ids) < expireBatch {
			return
		}
	}
}

// forgetMessages deletes the routed messages of a session that ended for
// the cluster.
func (t *sessionTable) forgetMessages(ctx context.Context, id string) {
	r := t.h.router
	if r == nil {
		return
	}
	if err := r.log.Delete(ctx, id); err != nil {
		t.h.opts.Logger.Warn("streamable: could not delete the routed messages of an ended session", "session", id, "error", err)
	}
}

// streamBase returns the number of the first POST stream of a shared
// session on this Handler: a random multiple of 2^20, so that the streams
// of one session on several Handlers are numbered apart, and a client
// resuming a request's stream on a Handler that did not serve it gets 400
// rather than another request's events.
func streamBase() int64 { return 1 + int64(rand.Uint32())<<20 }

// getBase returns the index of the priming event of a shared session's GET
// stream on this Handler, its messages' events numbered on from it: a
// random multiple of 2^32, so that the GET streams of one session on
// several Handlers (and on one Handler before and after it dropped its
// copy) issue different event IDs, and a client resuming the GET stream
// with an ID another Handler issued gets 400 rather than, later, a second
// event with an ID it holds for another message. With messages routed
// (route_get.go) the GET stream is numbered by the session's box instead.
func getBase() uint64 { return uint64(rand.Uint32()) << 32 }

// firstStream returns the number of the session's first POST stream here.
func (s *session) firstStream() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstNum
}

// resumeHint adds to the refusal of a Last-Event-ID, for a shared session,
// where a request's stream can be resumed.
func (s *session) resumeHint() string {
	if s.h.opts.Sessions == nil {
		return ""
	}
	if s.h.router == nil {
		return "; without routed messages a stream resumes only on the server that served it: open the GET stream afresh, without Last-Event-ID"
	}
	return "; a request's stream resumes only on the server that served the request (the GET stream's, 0_<n>, on any)"
}
