package streamable

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// errTooManySessions refuses an initialize when the session table is full.
var errTooManySessions = errors.New("too many sessions")

// errTooManyClientSessions refuses an initialize from a client that holds
// as many sessions as one client may.
var errTooManyClientSessions = errors.New("too many sessions for one client")

// sessionTable holds a Handler's live legacy sessions.
type sessionTable struct {
	h    *Handler
	skew atomic.Int64 // added to time.Now, in nanoseconds: tests move the clock

	mu       sync.Mutex
	m        map[string]*session
	started  int                       // sessions of m started here: what MaxSessions bounds
	ofClient map[string]clientSessions // live sessions started here per client (session.client)
	janitor  chan struct{}             // closed to stop the expiry goroutine; nil until started
	stopped  bool
}

// clientSessions counts the live sessions one client started here, and holds the
// key they share: a session takes its client's key from here rather than
// keep the copy its initialize made (24 B per idle session, of 1.55 KB).
type clientSessions struct {
	key string
	n   int
}

// create adds a session of principal, counted against client, with a
// fresh ID, first reclaiming idle sessions if the table is full. It fails
// when the table stays full, or when client holds as many sessions as one
// client may.
func (t *sessionTable) create(principal, client string) (*session, error) {
	max, perClient := t.h.opts.MaxSessions, t.h.opts.MaxSessionsPerClient
	if max > 0 && t.startedHere() >= max {
		t.sweep(t.now())
	}
	s := newSession(t.h, newSessionID(), principal, client)
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.stopped:
		return nil, ErrShutdown
	case perClient > 0 && t.ofClient[client].n >= perClient:
		return nil, fmt.Errorf("%w: %s holds %d sessions, the most one client may hold; end the sessions it no longer uses "+
			"(DELETE with their Mcp-Session-Id)%s, or raise the limit (HandlerOptions.MaxSessionsPerClient; weft: --max-sessions-per-client). "+
			"Behind a reverse proxy all unauthenticated clients share its address: authenticate them, or raise the limit",
			errTooManyClientSessions, client, perClient, t.idleNote())
	case max > 0 && t.started >= max:
		return nil, fmt.Errorf("%w: the server holds its limit of %d sessions; retry later, or raise HandlerOptions.MaxSessions (weft: --max-sessions)", errTooManySessions, max)
	}
	t.insertLocked(s)
	return s, nil
}

// insertLocked adds s to the table, counting it against its client
// unless it was taken over (client ""), and starts the expiry goroutine if
// it has not started; t.mu is held.
func (t *sessionTable) insertLocked(s *session) {
	if t.m == nil {
		t.m = make(map[string]*session)
		t.ofClient = make(map[string]clientSessions)
	}
	t.m[s.id] = s
	if s.client != "" {
		t.started++
		c, ok := t.ofClient[s.client]
		if ok {
			s.client = c.key
		} else {
			c.key = s.client
		}
		c.n++
		t.ofClient[c.key] = c
	}
	if t.janitor == nil && (t.h.opts.SessionIdleTimeout > 0 || t.h.opts.Sessions != nil) {
		t.janitor = make(chan struct{})
		go t.expire(t.janitor)
	}
}

// keepTakenOver is how long a copy of a session taken over from another
// instance is kept while idle here. Such copies count against no session
// limit (those bound the sessions started here, and each is counted on the
// instance that started it); they are bounded instead by being dropped
// once idle here this long, which leaves the session in the store for its
// next request to take over again. That is the idle timeout, or without
// one DefaultSessionIdleTimeout: the copies of sessions kept until deleted
// are still only a cache.
func (t *sessionTable) keepTakenOver() time.Duration {
	if idle := t.h.opts.SessionIdleTimeout; idle > 0 {
		return idle
	}
	return DefaultSessionIdleTimeout
}

// idleNote says when idle sessions end, for a message.
func (t *sessionTable) idleNote() string {
	if idle := t.h.opts.SessionIdleTimeout; idle > 0 {
		return fmt.Sprintf("; sessions idle for %v end by themselves", idle)
	}
	return ""
}

// now returns the table's current time.
func (t *sessionTable) now() time.Time {
	return time.Now().Add(time.Duration(t.skew.Load()))
}

// newSessionID returns 128 random bits in base64url: sessionIDLen visible
// ASCII characters.
func newSessionID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (Go 1.24+ crashes the program instead)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// sessionIDLen is the length of the IDs newSessionID makes.
const sessionIDLen = 22

// wellFormedSessionID reports whether id could be one newSessionID made.
// One that could not names no session on any instance: it is not worth a
// store round trip, and it never reaches a store that builds keys from it
// (in Redis "<id>:subs" named a session's subscription set, and its Touch
// failed there, answered 503 instead of 404).
func wellFormedSessionID(id string) bool {
	if len(id) != sessionIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// lookup returns the live session with the ID, or nil.
func (t *sessionTable) lookup(id string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[id]
}

// lookupOf returns the live session with the ID if principal started it, or
// nil: another principal's session looks exactly like a missing one.
func (t *sessionTable) lookupOf(id, principal string) *session {
	if s := t.lookup(id); s != nil && s.principal == principal {
		return s
	}
	return nil
}

// startedHere returns the number of live sessions started here.
func (t *sessionTable) startedHere() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.started
}

// end removes a session and ends it with cause: its server stops reading,
// its streams end (a POST stream of a session deleted for the cluster that
// has sent nothing answers 404: see endGone) and its stored events are
// deleted. Ending a session twice does nothing.
func (t *sessionTable) end(s *session, cause error) {
	streams, ok := s.shut(cause)
	// Every end removes the session from the table, not only the first:
	// one that finds the session shut by a concurrent end (the server's
	// connection closing as Shutdown ends every session) must not return
	// while the table still holds it. The check under the lock keeps the
	// removal, and the client's count, to one.
	t.mu.Lock()
	if t.m[s.id] == s {
		delete(t.m, s.id)
		if s.client != "" {
			t.started--
			if c := t.ofClient[s.client]; c.n > 1 {
				c.n--
				t.ofClient[s.client] = c
			} else {
				delete(t.ofClient, s.client)
			}
		}
	}
	t.mu.Unlock()
	if !ok {
		return
	}
	gone := s.deleted.Load()
	for _, st := range streams {
		if gone {
			st.endGone()
		} else {
			st.end()
		}
	}
	if t.h.router != nil {
		t.h.router.stop(s)
	}
	s.endInput(cause)
	if err := t.h.opts.EventStore.DeleteSession(context.Background(), s.id); err != nil {
		t.h.opts.Logger.Warn("streamable: could not delete the events of an ended session", "session", s.id, "error", err)
	}
}

// sweep ends the sessions idle since before now minus the idle timeout,
// and drops the copies of sessions taken over that are idle here past
// keepTakenOver, and returns how many it ended.
func (t *sessionTable) sweep(now time.Time) int {
	idle := t.h.opts.SessionIdleTimeout
	if idle <= 0 && t.h.opts.Sessions == nil {
		return 0
	}
	cutoff, takenOverCutoff := now.Add(-idle), now.Add(-t.keepTakenOver())
	var expired []*session
	t.mu.Lock()
	for _, s := range t.m {
		if s.client == "" && s.idleSince(takenOverCutoff) || s.client != "" && idle > 0 && s.idleSince(cutoff) {
			expired = append(expired, s)
		}
	}
	t.mu.Unlock()
	t.noteDeleted(expired)
	for _, s := range expired {
		t.h.opts.Logger.Debug("streamable: session expired", "session", s.id, "idle", idle)
		t.end(s, ErrSessionEnded)
	}
	return len(expired)
}

// expire sweeps idle sessions periodically until stop is closed: every
// half idle timeout, at most every minute.
func (t *sessionTable) expire(stop chan struct{}) {
	every := time.Minute
	if idle := t.h.opts.SessionIdleTimeout; idle > 0 {
		every = max(min(idle/2, every), time.Millisecond)
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			now := t.now()
			t.sweep(now)
			t.sweepStore(now)
		case <-stop:
			return
		}
	}
}

// shutdown stops the expiry goroutine and ends every session with cause;
// no session can be created afterwards.
func (t *sessionTable) shutdown(cause error) {
	t.mu.Lock()
	t.stopped = true
	if t.janitor != nil {
		close(t.janitor)
		t.janitor = nil
	}
	all := make([]*session, 0, len(t.m))
	for _, s := range t.m {
		all = append(all, s)
	}
	t.mu.Unlock()
	for _, s := range all {
		t.end(s, cause)
	}
}

// getStreams returns the GET streams of every live session.
func (t *sessionTable) getStreams() []*respStream {
	t.mu.Lock()
	all := make([]*session, 0, len(t.m))
	for _, s := range t.m {
		all = append(all, s)
	}
	t.mu.Unlock()
	var out []*respStream
	for _, s := range all {
		if st := s.stream(0); st != nil {
			out = append(out, st)
		}
	}
	return out
}
