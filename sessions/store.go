package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// ErrNotFound is returned for a session the store does not hold, and by
// the writes of a session that has ended.
var ErrNotFound = errors.New("sessions: no such session")

// ErrExists is returned by Create for an ID the store already holds.
var ErrExists = errors.New("sessions: a session with this ID exists")

// Record is what every instance needs to serve one legacy session without
// a new initialize.
type Record struct {
	ID string
	// Principal is who initialized the session, as the transport
	// authenticated them ("" when it authenticated none): only they reach it.
	Principal string
	// Version is the protocol version initialize negotiated.
	Version string
	// Capabilities and ClientInfo are the client's, from initialize, as
	// JSON; they come back byte for byte.
	Capabilities json.RawMessage
	ClientInfo   json.RawMessage
	// Level is the threshold logging/setLevel set; "" for none.
	Level string
	// Subscriptions are the URIs of resources/subscribe: a set, in no
	// particular order.
	Subscriptions []string
	// CreatedAt is when the session was initialized; LastSeen when a request
	// or an open stream last showed it in use (see Store.Touch).
	CreatedAt time.Time
	LastSeen  time.Time
	// Ended is true once the session was deleted (Store.End): every
	// instance then refuses it, until Expire removes the record.
	Ended bool
}

// Clone returns a deep copy of r.
func (r *Record) Clone() *Record {
	c := *r
	c.Capabilities = slices.Clone(r.Capabilities)
	c.ClientInfo = slices.Clone(r.ClientInfo)
	c.Subscriptions = slices.Clone(r.Subscriptions)
	return &c
}

// EndedLastSeen is the LastSeen End gives a session: the Unix epoch,
// before any live session's, so that the next Expire removes the
// tombstone whatever its bound, and Expire(ExpireEndedBefore) removes
// tombstones alone (for deployments whose sessions never idle out).
// Nothing needs a tombstone once End has returned: a missing session
// reads as ended to every instance.
var EndedLastSeen = time.Unix(0, 0).UTC()

// ExpireEndedBefore is the Expire bound that deletes the ended sessions
// and no live one.
var ExpireEndedBefore = EndedLastSeen.Add(time.Millisecond)

// Store is the driver interface for session state shared by the server
// instances of a deployment. A driver must pass sessiontest.TestStore (and,
// if several processes can share it, sessiontest.TestStorePair).
//
// The contract: a write is visible to every handle on the store before it
// returns; records passed in and handed out are copies; every call honours
// its context; times come back as the same instants to at least millisecond
// precision.
type Store interface {
	// Create stores a new session, or fails with ErrExists.
	Create(ctx context.Context, rec *Record) error
	// Get returns the session, ended or not, or ErrNotFound.
	Get(ctx context.Context, id string) (*Record, error)
	// Touch returns the session, as Get does, in one round trip to the
	// store; and when the session has not ended and its LastSeen is more
	// than every before now, it first sets LastSeen to now. So a session in
	// steady use is written once per every, not on each request.
	Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*Record, error)
	// SetLevel, Subscribe and Unsubscribe change a live session and
	// return it as changed, in one round trip to the store, so that the
	// write also tells an instance whether the session still lives (a
	// request making it needs no Touch before it): ErrNotFound when the
	// session is missing or ended. The write shows the session in use: it
	// moves LastSeen to now unless LastSeen is later.
	//
	// SetLevel sets the session's log level.
	SetLevel(ctx context.Context, id, level string, now time.Time) (*Record, error)
	// Subscribe adds uri to the session's subscriptions; adding one twice
	// keeps one.
	Subscribe(ctx context.Context, id, uri string, now time.Time) (*Record, error)
	// Unsubscribe removes uri from the session's subscriptions.
	Unsubscribe(ctx context.Context, id, uri string, now time.Time) (*Record, error)
	// End marks the session of principal ended for every instance, and
	// sets its LastSeen to EndedLastSeen, in one round trip: ErrNotFound
	// when the session is missing, has ended already, or is another
	// principal's (which looks like a missing one), and then nothing
	// changes.
	End(ctx context.Context, id, principal string) error
	// Expire deletes up to limit sessions, ended or not, last seen before
	// idleBefore, and returns their IDs. A bound after EndedLastSeen
	// deletes every ended session, and with no idle expiry
	// (ExpireEndedBefore) only those.
	Expire(ctx context.Context, idleBefore time.Time, limit int) ([]string, error)
	// Subscribers returns, in byte order, the IDs after the ID after ("":
	// from the first) of up to limit live sessions subscribed to uri: a
	// page of them, read without loading the others, for notifying them
	// all wherever they are served. Subscribe, Unsubscribe, End and Expire
	// keep it current. An ID of the last page may go on to the next call's
	// after, whatever changed meanwhile.
	Subscribers(ctx context.Context, uri, after string, limit int) ([]string, error)
	// StateKey returns the key every instance on the store signs request
	// state with: 32 random bytes made by the first call in the store's
	// life, the same for every later call on any handle.
	StateKey(ctx context.Context) ([]byte, error)
}
