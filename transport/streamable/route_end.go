package streamable

import (
	"context"
	"errors"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
)

// endedKind is the kind of the bus signal that a session was deleted: it
// goes to the session's ToServer box signal, which every instance holding
// a copy of the session follows (router.listen).
const endedKind tasks.SignalKind = "session-ended"

// announceEnded tells the other instances holding a copy of the session
// that DELETE ended it here, so that they end their copies and the
// streams open on them at once rather than at their next janitor sweep.
// A lost signal leaves that to the sweep.
func (r *router) announceEnded(ctx context.Context, session string) {
	if err := r.bus.Publish(ctx, tasks.Signal{TaskID: boxSignal(session, sessions.ToServer), Kind: endedKind}); err != nil {
		r.h.opts.Logger.Warn("streamable: could not tell the other instances that a session was deleted; they end it at their next sweep",
			"session", session, "error", err)
	}
}

// endedElsewhere ends this instance's copy of a session that another
// instance announced deleted, once the session store confirms it: the
// signal alone ends nothing, so one that is stale or misdirected cannot
// end a live session.
func (r *router) endedElsewhere(s *session) {
	ctx, cancel := context.WithTimeout(r.h.ctx, storeTimeout)
	defer cancel()
	rec, err := r.h.opts.Sessions.Get(ctx, s.id)
	switch {
	case errors.Is(err, sessions.ErrNotFound) || err == nil && rec.Ended:
		r.h.sessions.endDeleted(s)
	case err != nil:
		r.h.opts.Logger.Warn("streamable: could not confirm that a session was deleted elsewhere; it ends at the next sweep",
			"session", s.id, "error", err)
	}
}
