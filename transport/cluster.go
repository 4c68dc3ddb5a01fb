package transport

import (
	"context"

	"github.com/weftmcp/weft/jsonrpc"
)

// Cluster reaches the legacy sessions of every server instance that shares
// a session store, a message log and a bus with this one (a Streamable
// HTTP Handler that routes messages between instances), wherever each
// session is served. A server given one tells the whole cluster's sessions
// of changes, not only those it serves itself.
type Cluster interface {
	// Subscribers returns a page of the IDs of the live sessions
	// subscribed to uri (resources/subscribe on any instance): up to limit
	// of them, in byte order, after the ID after ("" for the first page).
	Subscribers(ctx context.Context, uri, after string, limit int) ([]string, error)
	// Notify sends the notification msg to the client of the session with
	// the ID, on its GET stream whichever instance holds it (or, while none
	// does, kept for its resumption).
	Notify(ctx context.Context, session string, msg *jsonrpc.Request) error
	// HoldsStream reports whether this instance holds the GET stream of
	// the session with the ID: a client is connected to it here, or was
	// lately and may be resuming it (then on any instance).
	HoldsStream(session string) bool
	// Announce tells every instance, this one included, that topic
	// happened: each runs the functions that Follow gave it for topic.
	// Announcements are wake-ups: several close together may come as one.
	Announce(ctx context.Context, topic string) error
	// Follow runs fn on a goroutine of its own each time any instance
	// announces topic, until this instance's transport shuts down. ctx
	// bounds only the call itself.
	Follow(ctx context.Context, topic string, fn func()) error
}
