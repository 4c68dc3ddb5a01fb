package transport

import (
	"context"
	"encoding/json"

	"github.com/weftmcp/weft/sessions"
)

// SharedSession is implemented by the stream of a legacy session kept in a
// sessions.Store that several server instances share (a Streamable HTTP
// Handler with HandlerOptions.Sessions): any instance may serve its
// requests, so the server keeps what the session negotiated and set in the
// store rather than only in its memory.
type SharedSession interface {
	// Stored returns the session's state as this instance last read it from
	// the store (refreshed on each HTTP request of the session), or nil
	// before Established. The record must not be changed.
	Stored() *sessions.Record
	// Established stores the session once initialize has negotiated
	// version with a client of the capabilities and info given (as JSON).
	Established(ctx context.Context, version string, caps, client json.RawMessage) error
	// SetLevel stores the log level logging/setLevel set.
	//
	// A logging/setLevel, resources/subscribe or resources/unsubscribe
	// request reaches the server without the store check every other
	// request of the session makes first: the server answers it by calling
	// SetLevel, Subscribe or Unsubscribe, whose write makes that check
	// (so the request costs one round trip to the store). When the write
	// finds the session ended elsewhere, it fails with an error that wraps
	// the transport's session-ended error, the session ends here, and the
	// request is answered as one of an ended session (404) if its answer
	// has not begun.
	SetLevel(ctx context.Context, level string) error
	// Subscribe and Unsubscribe store a resources/subscribe or
	// resources/unsubscribe.
	Subscribe(ctx context.Context, uri string) error
	Unsubscribe(ctx context.Context, uri string) error
	// Deleted reports, once the stream has ended, whether the session ended
	// for every instance (deleted or expired in the store) rather than only
	// here (idle on this instance, or its shutdown), where another instance
	// may take it over.
	Deleted() bool
}
