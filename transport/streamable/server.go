package streamable

import (
	"context"
	stdjson "encoding/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// Server is the MCP server a Handler serves over HTTP; *server.Server is
// one. Its methods use only jsonrpc and transport types, so the transport
// does not depend on the server package.
type Server interface {
	// ConnectSession starts serving one legacy session (2024-11-05 …
	// 2025-11-25) over stream and returns at once; the session runs until
	// stream.Read fails. stream.Read yields what the client POSTs to the
	// session; stream.Write routes what the server sends: a response to the
	// POST awaiting it, a message written with the context of a request
	// handler (jsonrpc.InboundID) to that request's stream, anything else to
	// the session's GET stream. info names the session (its Mcp-Session-Id)
	// and the principal that started it, the only one whose requests reach
	// it. The stream is a transport.Exchanges: the exchange of each request
	// gives its handler the POST's context values, lets it close its SSE
	// stream, and answers an authorization error with 401 or 403. ctx ends
	// when the Handler shuts down.
	ConnectSession(ctx context.Context, stream jsonrpc.Stream, info transport.SessionInfo) error

	// ServeRequest answers one modern request (2026-07-28 and later), or
	// a notification (returning nil), with no session. ctx ends when the
	// client closes the response stream, which cancels the request, and
	// when the Handler shuts down (context.Cause is then ErrShutdown); its
	// values are the HTTP request's. info carries the authenticated
	// principal, the MCP-Protocol-Version header and the request's
	// exchange. notify sends a message on the request's own response
	// stream (progress, logs, and for subscriptions/listen the
	// acknowledgement and every notification), which turns the response
	// into an SSE stream; it fails once the client is gone or the response
	// has been returned.
	ServeRequest(ctx context.Context, req *jsonrpc.Request, info transport.RequestInfo, notify func(context.Context, *jsonrpc.Request) error) *jsonrpc.Response
}

// ToolSchemas is implemented by a Server that can tell the input schema of
// its tools, as *server.Server does. A Handler whose
// HandlerOptions.ToolInputSchema is nil checks the Mcp-Param-* headers of
// a modern tools/call against it.
type ToolSchemas interface {
	ToolInputSchema(ctx context.Context, tool string) (stdjson.RawMessage, bool)
}
