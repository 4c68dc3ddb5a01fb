package sessions

import (
	"context"
	"errors"
	"time"
)

// ErrTrimmed is returned by MessageLog.Read when some of the messages asked
// for were dropped to keep the box bounded (or never existed): the reader
// cannot go on exactly from where it was.
var ErrTrimmed = errors.New("sessions: the messages after that number are no longer kept")

// KeepMessages is how many messages, at least, a MessageLog keeps in each
// box of a session: the newest ones. A client that reconnects to its GET
// stream with a Last-Event-ID older than that gets 400 and starts afresh.
const KeepMessages = 1000

// Box names one of the two queues of messages a session has in a
// MessageLog.
type Box uint8

const (
	// ToClient holds what the server sends the client outside any request's
	// own response: the events of the session's GET stream, numbered as its
	// event IDs are. Whichever instance holds that stream reads it.
	ToClient Box = iota
	// ToServer holds what the client sent one instance for another: an
	// answer to a server-to-client request another instance sent, a
	// notifications/cancelled for a request another instance runs. Every
	// instance serving the session reads it and takes what is its own.
	ToServer
)

// Message is one message of a box: its number and its JSON-RPC encoding.
type Message struct {
	Seq  uint64
	Data []byte
}

// MessageLog is the driver interface for the messages that cross between
// the instances serving one legacy session: a bounded log per session and
// box in the shared store, which the instance that should deliver a message
// reads when a tasks.Bus signal says there is something new. A driver must
// pass sessiontest.TestMessageLog (and, if several processes can share it,
// sessiontest.TestMessageLogPair).
//
// The contract: an append is visible to every handle before it returns;
// numbers in a box run 1, 2, 3… without gaps, whoever appends, even
// concurrently; data comes back byte for byte; every call honours its
// context.
type MessageLog interface {
	// Append adds data as the box's next message and returns its number. It
	// may drop the box's oldest messages beyond the newest KeepMessages.
	Append(ctx context.Context, session string, box Box, data []byte) (uint64, error)
	// Read returns the box's messages numbered above after, oldest first
	// (none when there is none). It fails with ErrTrimmed when the message
	// numbered after+1 was dropped but later ones are kept.
	Read(ctx context.Context, session string, box Box, after uint64) ([]Message, error)
	// Last returns the number of the box's newest message; 0 when the box
	// has had none.
	Last(ctx context.Context, session string, box Box) (uint64, error)
	// SetReader records that reader (an instance) holds the session's GET
	// stream, and so reads its ToClient box, until the given time. A zero
	// time clears the record, but only if reader still holds it.
	SetReader(ctx context.Context, session, reader string, until time.Time) error
	// HasReader reports whether some instance holds the session's GET
	// stream at now: it set a reader until a later time.
	HasReader(ctx context.Context, session string, now time.Time) (bool, error)
	// Delete forgets the session's messages and reader.
	Delete(ctx context.Context, session string) error
}
