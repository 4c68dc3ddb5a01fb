package transport

import (
	"context"

	"github.com/weftmcp/weft/jsonrpc"
)

// The types below are what the HTTP transports (streamable, sse) tell the
// server beyond the messages themselves, in terms the server needs no HTTP
// for: who sent a session or request, and what the server may ask of the
// HTTP exchange that carries a request.

// SessionInfo describes a session a transport starts: a legacy Streamable
// HTTP session or an HTTP+SSE session.
type SessionInfo struct {
	// ID names the session, as its client sends it back (Mcp-Session-Id, or
	// the sessionId query parameter); empty lets the server pick one.
	ID string
	// Principal is the identity the transport authenticated for the HTTP
	// request that started the session ("" when it authenticated none).
	// The transport refuses every later request of the session from anyone
	// else, so it is the principal of all of them.
	Principal string
}

// RequestInfo is what a transport learned about a request that stands
// alone (the modern era over Streamable HTTP) besides its body.
type RequestInfo struct {
	// Principal is the identity the transport authenticated, if any.
	Principal string
	// Version is the protocol version the transport read outside the body
	// (the MCP-Protocol-Version HTTP header), if any; the request's _meta
	// must name the same one.
	Version string
	// Exchange is the HTTP exchange carrying the request, or nil.
	Exchange Exchange
}

// Exchange is the transport's side of one request in flight: what the
// server may ask of the HTTP exchange that carries it.
type Exchange interface {
	// Context returns the context of the HTTP request that carried the
	// request, with the values its middleware stored (the verified access
	// token, for one). It may have ended: only its values are of use.
	Context() context.Context
	// CloseStream ends the HTTP response carrying the request's SSE stream
	// without ending the stream: the client reconnects with GET and
	// Last-Event-ID and receives the rest, the response included. It
	// reports whether there was such a response to end (only a resumable
	// stream of a legacy session has one).
	CloseStream() bool
	// Refuse answers the HTTP request with a refusal for err instead of a
	// JSON-RPC response, when the transport has one for err (an HTTP
	// transport answers an authorization error with 401 or 403) and nothing
	// of the response has been sent yet. It reports whether it did; the
	// server's response to the request is then dropped.
	Refuse(err error) bool
}

// Exchanges is implemented by a session stream whose requests each arrive
// in an HTTP exchange of their own (a legacy Streamable HTTP session).
type Exchanges interface {
	// Exchange returns the exchange carrying request id, or nil when none
	// awaits its response.
	Exchange(id jsonrpc.ID) Exchange
}
