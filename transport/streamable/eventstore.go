package streamable

import (
	"context"
	"errors"
)

// ErrEventsGone is returned by EventStore.After when some of the requested
// events are no longer stored, so the stream cannot be resumed exactly.
var ErrEventsGone = errors.New("streamable: the events after that ID are no longer stored")

// EventStore keeps the server-sent events of legacy sessions (2025-03-26 …
// 2025-11-25), so that a client that lost a stream can reconnect with
// Last-Event-ID and receive what it missed. Modern requests are not
// resumable and store nothing.
//
// Within a session, streams are numbered from 0 (the GET stream) up, and the
// events of a stream are numbered from 1 up without gaps (the GET stream of
// a session in a shared sessions.Store from one past a random base up). One store may serve
// many Handlers: session IDs are unguessable and so never collide. Methods
// may be called concurrently.
type EventStore interface {
	// Append stores the data of event index of a stream. Calls for one stream
	// come in index order. The store must copy data if it keeps it.
	Append(ctx context.Context, session string, stream int64, index uint64, data []byte) error
	// After returns the data of every stored event of the stream numbered
	// above index, in order (none when the stream has no later event). It
	// returns an error wrapping ErrEventsGone when any of them was dropped.
	After(ctx context.Context, session string, stream int64, index uint64) ([][]byte, error)
	// DeleteSession forgets the events of a session that has ended.
	DeleteSession(ctx context.Context, session string) error
}
