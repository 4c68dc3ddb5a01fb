package streamable

import (
	"context"
	"net/http"
	"runtime/debug"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// serveModern serves a POST of the modern era: one request that stands
// alone, answered with JSON, or with an SSE stream when the server sends
// notifications first. Closing the response stream cancels the request.
func (h *Handler) serveModern(w http.ResponseWriter, r *http.Request, p *post) {
	req := p.single()
	if req == nil {
		writeError(w, http.StatusBadRequest, firstID(p), jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%v", errBodyNotSingle))
		return
	}
	if jerr := h.checkModernHeaders(r, req, &p.route); jerr != nil {
		writeError(w, http.StatusBadRequest, req.ID, jerr)
		return
	}
	if !authorize(w, r, p) {
		return
	}
	// The request ends when the client goes, and on shutdown: at once for a
	// subscriptions/listen stream, after the grace period for the rest.
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	end := h.ctx
	if req.Method == mcp.MethodSubscriptionsListen {
		end = h.listenCtx
	}
	stop := context.AfterFunc(end, func() { cancel(context.Cause(end)) })
	defer stop()

	info := transport.RequestInfo{Principal: auth.PrincipalFrom(r.Context()), Version: r.Header.Get(headerProtocolVersion)}
	if req.IsNotification() {
		h.serveStandalone(ctx, req, info, func(context.Context, *jsonrpc.Request) error { return errStreamEnded })
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := newRespStream(h, nil, w, 1, false)
	defer st.detach(w) // nothing writes to w once this handler has returned
	st.cancel, st.reqCtx = cancel, r.Context()
	info.Exchange = exchange{st: st}
	resp := h.serveStandalone(ctx, req, info, st.notify)
	if resp == nil {
		resp = &jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "the server returned no response to %s", req.Method)}
	}
	if err := st.deliver(resp, true); err != nil && ctx.Err() == nil {
		h.opts.Logger.Debug("streamable: could not send a response", "method", req.Method, "id", req.ID, "error", err)
	}
}

// notify sends a notification on a modern request's response stream.
func (st *respStream) notify(_ context.Context, n *jsonrpc.Request) error {
	return st.deliver(n, false)
}

// serveStandalone calls the server, turning a panic into an internal error
// response.
func (h *Handler) serveStandalone(ctx context.Context, req *jsonrpc.Request, info transport.RequestInfo,
	notify func(context.Context, *jsonrpc.Request) error) (resp *jsonrpc.Response) {
	defer func() {
		if v := recover(); v != nil {
			h.opts.Logger.Error("streamable: panic serving a request", "method", req.Method, "panic", v, "stack", string(debug.Stack()))
			resp = &jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: the server failed serving %s", req.Method)}
		}
	}()
	return h.srv.ServeRequest(ctx, req, info, notify)
}
