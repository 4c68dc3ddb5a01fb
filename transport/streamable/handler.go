package streamable

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/sse"
	"github.com/weftmcp/weft/transport/websocket"
)

// ErrShutdown is the cause (context.Cause) of the contexts of requests and
// sessions ended because the Handler shuts down.
var ErrShutdown = errors.New("streamable: the server is shutting down")

// Handler serves MCP over Streamable HTTP on one endpoint, for every
// protocol version at once: legacy sessions (2025-03-26 … 2025-11-25, and
// 2024-11-05 clients that use this transport) and modern standalone
// requests (2026-07-28 and later). Mount it on your mux at the MCP
// endpoint, for example "/mcp", and serve that with NewHTTPServer, whose
// timeouts close stalled and idle connections without cutting SSE streams.
//
// Pages of other sites are kept out as sse.OriginPolicy describes
// (HandlerOptions.Origins), on every address the server listens on; one
// client may hold at most HandlerOptions.MaxSessionsPerClient of the
// HandlerOptions.MaxSessions legacy sessions, and a session idle for
// HandlerOptions.SessionIdleTimeout ends.
//
// Before shutting down the http.Server, call Shutdown: it ends the
// long-lived streams that would otherwise keep http.Server.Shutdown
// waiting.
type Handler struct {
	srv      Server
	opts     HandlerOptions
	ws       *websocket.Handler // serves the upgrades to WebSocket
	sessions sessionTable
	router   *router  // routes shared sessions' messages; nil without HandlerOptions.Messages
	schemas  sync.Map // tool name → *toolHeaders

	// ctx is the context of sessions and requests; it is cancelled when
	// Shutdown gives up waiting. listenCtx is cancelled when Shutdown begins:
	// subscriptions/listen streams end at once.
	ctx          context.Context
	cancel       context.CancelCauseFunc
	listenCtx    context.Context
	listenCancel context.CancelCauseFunc

	mu       sync.Mutex
	closing  bool
	inflight int           // requests being served
	idle     chan struct{} // closed when inflight reaches 0 during shutdown
}

// NewHandler returns a Handler serving srv. opts may be nil.
//
// To protect the endpoint with OAuth, serve it behind the auth package's
// middleware (auth.ResourceServer.Handler): the Handler then binds each
// legacy session to the principal that initialized it (anyone else gets
// 404), passes the principal of each modern request to the server, checks
// the scopes each request needs (auth.Authorize) before the server sees
// it, and answers a handler's auth.InsufficientScopeError with 403 while
// nothing of the response has been sent. Put the Origin check in front of
// that middleware (HandlerOptions.Origins.Guard), so that a page of a
// foreign origin gets 403 rather than the middleware's 401.
func NewHandler(srv Server, opts *HandlerOptions) *Handler {
	h := &Handler{srv: srv, opts: opts.withDefaults()}
	if ts, ok := srv.(ToolSchemas); ok && h.opts.ToolInputSchema == nil {
		h.opts.ToolInputSchema = ts.ToolInputSchema
	}
	h.sessions.h = h
	h.router = newRouter(h)
	h.ws = websocket.NewHandler(srv, h.opts.webSocketOptions())
	h.ctx, h.cancel = context.WithCancelCause(context.Background())
	h.listenCtx, h.listenCancel = context.WithCancelCause(h.ctx)
	if m, ok := srv.(ClusterMember); ok && h.router != nil {
		m.JoinCluster(cluster{h.router})
	}
	return h
}

// exposedHeaders are the response headers a browser-based client reads.
const exposedHeaders = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate"

// ServeHTTP serves one request to the MCP endpoint. A page from another
// origin that HandlerOptions.Origins admits may use it too (CORS; see
// sse.AllowCORS). A GET asking to upgrade to WebSocket opens a WebSocket
// session (package websocket), after the same Origin and Host checks.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.enter() {
		w.Header().Set("Connection", "close")
		refuse(w, http.StatusServiceUnavailable, "the server is shutting down; retry on another instance")
		return
	}
	defer h.leave()
	defer h.recoverPanic(w, r)
	if err := h.opts.Origins.Check(r); err != nil {
		refuse(w, http.StatusForbidden, "%v", err)
		return
	}
	if websocket.IsUpgrade(r) {
		h.ws.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodOptions {
		sse.ServeOptions(w, r, "GET, POST, DELETE")
		return
	}
	sse.AllowCORS(w, r, exposedHeaders)
	switch r.Method {
	case http.MethodPost:
		h.servePost(w, r)
	case http.MethodGet:
		h.serveGet(w, r)
	case http.MethodDelete:
		h.serveDelete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		refuse(w, http.StatusMethodNotAllowed, "method %s is not allowed; the MCP endpoint takes POST (and GET and DELETE in a legacy session)", r.Method)
	}
}

// servePost reads a POST and sends it down the path of its era.
func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	if !checkMedia(w, r) {
		return
	}
	p, ok := readPost(w, r, h.opts.MaxBodyBytes)
	if !ok {
		return
	}
	if isModern(r, p) {
		h.serveModern(w, r, p)
		return
	}
	h.serveLegacyPost(w, r, p)
}

// modernOnly answers a GET or DELETE without a session: 405 when the client
// speaks a modern version (which has neither), 400 otherwise.
func modernOnly(w http.ResponseWriter, r *http.Request) {
	if mcp.IsModern(r.Header.Get(headerProtocolVersion)) {
		w.Header().Set("Allow", "POST")
		refuse(w, http.StatusMethodNotAllowed, "protocol version %s has no %s on the MCP endpoint: send every request as a POST",
			r.Header.Get(headerProtocolVersion), r.Method)
		return
	}
	refuse(w, http.StatusBadRequest, "%s needs the Mcp-Session-Id header of a session that initialize established", r.Method)
}

// enter counts a request in; it fails once Shutdown has begun.
func (h *Handler) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	h.inflight++
	return true
}

// leave counts a request out.
func (h *Handler) leave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inflight--
	if h.inflight == 0 && h.idle != nil {
		close(h.idle)
		h.idle = nil
	}
}

// recoverPanic keeps a panic in serving one request from taking the
// process down: it is logged with its stack, and the client gets 500 when
// nothing was sent yet (otherwise its stream just ends).
func (h *Handler) recoverPanic(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	h.opts.Logger.Error("streamable: panic serving a request", "method", r.Method, "panic", v, "stack", string(debug.Stack()))
	refuse(w, http.StatusInternalServerError, "internal error: the server failed serving this request")
}

// Shutdown stops the Handler: new requests are refused with 503, GET
// streams and subscriptions/listen streams end at once, and other requests
// in flight may finish until ctx ends; then every session ends and what is
// still running is cancelled (context.Cause is ErrShutdown). It returns
// ctx's error if it had to cancel work.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	var idle chan struct{}
	if h.inflight > 0 {
		if h.idle == nil {
			h.idle = make(chan struct{})
		}
		idle = h.idle
	}
	h.mu.Unlock()

	h.listenCancel(ErrShutdown)
	wsErr := h.ws.Shutdown(ctx)
	for _, st := range h.sessions.getStreams() {
		st.end()
	}
	var err error
	if idle != nil {
		select {
		case <-idle:
		case <-ctx.Done():
			err = fmt.Errorf("streamable: shutdown cancelled requests still in flight: %w", ctx.Err())
		}
	}
	h.cancel(ErrShutdown)
	h.sessions.shutdown(ErrShutdown)
	return errors.Join(err, wsErr)
}
