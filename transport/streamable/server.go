package streamable

import (
	"context"
	"net/http"

	"github.com/weftmcp/weft/jsonrpc"
)

// Server is the MCP server a Handler serves over HTTP. Its method
// signatures use only standard and jsonrpc types, so the transport does not
// depend on the server package.
type Server interface {
	// ConnectStream starts serving one legacy session (2024-11-05 …
	// 2025-11-25) over stream and returns at once; the session runs until
	// stream.Read fails. stream.Read yields what the client POSTs to the
	// session; stream.Write routes what the server sends: a response to the
	// POST awaiting it, a message written with the context of a request
	// handler (jsonrpc.InboundID) to that request's stream, anything else to
	// the session's GET stream. ctx ends when the Handler shuts down.
	//
	// The stream also has methods the server may reach by type assertion:
	//
	//	SessionID() string                  // the Mcp-Session-Id
	//	CloseRequestStream(id jsonrpc.ID) bool // end the SSE stream of a request; the client resumes with GET and Last-Event-ID
	ConnectStream(ctx context.Context, stream jsonrpc.Stream) error

	// ServeStandalone answers one modern request (2026-07-28 and later), or
	// a notification (returning nil), with no session. ctx ends when the
	// client closes the response stream, which cancels the request, and
	// when the Handler shuts down (context.Cause is then ErrShutdown).
	// header holds the HTTP request's headers. notify sends a message on the
	// request's own response stream (progress, logs, and for
	// subscriptions/listen the acknowledgement and every notification),
	// which turns the response into an SSE stream; it fails once the client
	// is gone or the response has been returned.
	ServeStandalone(ctx context.Context, req *jsonrpc.Request, header http.Header, notify func(context.Context, *jsonrpc.Request) error) *jsonrpc.Response
}
