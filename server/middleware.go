package server

import (
	"context"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// Result is the answer to a request: every mcp result type (they embed
// mcp.Result), and those of methods added with AddMethod.
type Result interface {
	ResultBase() *mcp.Result
}

// MethodHandler serves one incoming message: a request, or a notification
// (then r.IsNotification reports true, the result is ignored and an error
// only drops the notification). r says what was asked (Method, Params,
// DecodedParams, ToolName) and by whom (Principal, SessionID,
// ProtocolVersion, ClientCapabilities). The result is final: on a modern
// request it carries resultType and _meta already.
type MethodHandler func(ctx context.Context, r *Request) (Result, error)

// Middleware wraps the server's MethodHandler, as net/http middleware wraps
// an http.Handler: it may look at the request, change ctx, answer in
// next's place (a *jsonrpc.Error is sent as it is, any other error as
// -32603 with its text), and look at next's result or error. See
// Options.Middleware.
type Middleware func(next MethodHandler) MethodHandler

// handleMessage is the innermost MethodHandler: it serves a request
// (dispatch), or a notification that arrived on a connection. Its route is
// looked up again rather than kept on the Request, which this would have
// grown into a larger size class (+32 B on every request, with or without
// middleware: BenchmarkToolsCall).
func (s *Server) handleMessage(ctx context.Context, r *Request) (Result, error) {
	if !r.IsNotification() {
		return s.dispatch(ctx, r, s.lookupRoute(r.method))
	}
	if r.via != nil {
		r.via.notification(&jsonrpc.Request{Method: r.method, Params: r.params})
	}
	return nil, nil
}

// notificationRequest returns the Request a notification that arrived on
// ss is to middleware and to notification hooks: its method and params,
// and the caller as the session knows it.
func (ss *Session) notificationRequest(req *jsonrpc.Request) *Request {
	r := &Request{srv: ss.srv, via: ss, method: req.Method, params: req.Params, meta: notificationMeta(req), principal: ss.principal}
	ss.mu.Lock()
	if ss.phase != phaseNew {
		ss.legacyLocked(r)
	}
	ss.mu.Unlock()
	return r
}

// handleNotification passes a notification that arrived on ss through the
// middleware, when there is any, to its handling.
func (ss *Session) handleNotification(ctx context.Context, req *jsonrpc.Request) {
	if ss.srv.chain == nil {
		ss.notification(req)
		return
	}
	r := ss.notificationRequest(req)
	if _, err := ss.srv.chain(ctx, r); err != nil {
		ss.srv.logger.Debug("server: middleware dropped a notification", "session", ss.id, "method", req.Method, "error", err)
	}
}

// serveNotification passes a notification that arrived on its own (over
// Streamable HTTP, in the modern era) through the middleware, which alone
// sees it: the server acts on none.
func (s *Server) serveNotification(ctx context.Context, req *jsonrpc.Request, info transport.RequestInfo) {
	if s.chain == nil {
		return
	}
	r := &Request{srv: s, method: req.Method, params: req.Params, meta: notificationMeta(req),
		principal: info.Principal, version: info.Version, modern: true}
	if _, err := s.chain(ctx, r); err != nil {
		s.logger.Debug("server: middleware dropped a notification", "method", req.Method, "error", err)
	}
}

// notificationMeta returns the _meta of a notification, nil when it has
// none or its params are malformed (the server ignores those).
func notificationMeta(req *jsonrpc.Request) mcp.Meta {
	var p mcp.NotificationParams
	if len(req.Params) == 0 || json.Unmarshal(req.Params, &p) != nil {
		return nil
	}
	return p.Meta
}
