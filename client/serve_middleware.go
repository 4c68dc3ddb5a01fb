package client

import (
	"context"

	"github.com/weftmcp/weft/jsonrpc"
)

// ServeHandler serves one message the server sent the session besides
// responses: a server-to-client request (elicitation/create,
// sampling/createMessage, roots/list, ping, the tasks methods of hosted
// tasks) or a notification (req.IsNotification; the result is ignored).
type ServeHandler func(ctx context.Context, s *Session, req *jsonrpc.Request) (any, error)

// ServeMiddleware wraps the session's ServeHandler, as Middleware wraps
// the sending: it may look at the message, change ctx, answer in next's
// place, and look at next's result or error. See Options.ServeMiddleware.
type ServeMiddleware func(next ServeHandler) ServeHandler

// serveMessage is the innermost ServeHandler.
func serveMessage(ctx context.Context, s *Session, req *jsonrpc.Request) (any, error) {
	return s.handle(ctx, req)
}

// handler returns what serves the messages the server sends s: its handle
// method, through Options.ServeMiddleware when there is any.
func (s *Session) handler() jsonrpc.Handler {
	h := s.client.serveChain
	if h == nil {
		return jsonrpc.HandlerFunc(s.handle)
	}
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return h(ctx, s, req)
	})
}
