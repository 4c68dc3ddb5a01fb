package websocket

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	ws "github.com/coder/websocket"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/sse"
)

// ErrShutdown is the error of a session whose connection ended because
// the Handler shut down.
var ErrShutdown = errors.New("websocket: the server is shutting down")

// Server is the MCP server a Handler serves; *server.Server is one.
type Server interface {
	// ConnectSession starts serving one connection over stream and returns
	// at once; the session runs until stream.Read fails. info carries the
	// principal the auth middleware authenticated for the upgrade request
	// ("" when none), and an empty ID for the server to pick. ctx ends when
	// the Handler shuts down.
	ConnectSession(ctx context.Context, stream jsonrpc.Stream, info transport.SessionInfo) error
}

// Defaults of HandlerOptions.
const (
	DefaultMaxConnections          = 10000
	DefaultMaxConnectionsPerClient = 100
)

// HandlerOptions configures a Handler. The zero value gives safe defaults.
type HandlerOptions struct {
	// ConnOptions configures each connection: message size, keep-alive
	// pings and write timeout.
	ConnOptions
	// Origins keeps pages of other sites out: an upgrade it refuses gets
	// 403. WebSocket is not subject to CORS, so this check is the only one
	// between a browser page and the endpoint. See sse.OriginPolicy.
	Origins sse.OriginPolicy
	// MaxConnections bounds the open connections; an upgrade beyond it is
	// refused with 503. 0 means DefaultMaxConnections; negative means no
	// bound.
	MaxConnections int
	// MaxConnectionsPerClient bounds the open connections of one client:
	// one principal, or without authentication one remote address. An
	// upgrade beyond it is refused with 429. 0 means
	// DefaultMaxConnectionsPerClient; negative means no bound.
	MaxConnectionsPerClient int
	// Logger receives the handler's diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Handler accepts MCP connections over WebSocket on an HTTP endpoint: a
// GET asking to upgrade to WebSocket with the subprotocol "mcp". Each
// connection is one session of the Server, as a stdio connection is.
//
// Behind the auth package's middleware, an upgrade without a valid bearer
// token gets the middleware's 401; the session then belongs to the
// token's principal, every request on it is checked against the scopes it
// needs (auth.Authorize) and answered with a JSON-RPC error when the token
// lacks one, and handlers see the token in their context.
//
// A streamable.Handler hands the upgrades it receives to a Handler of its
// own; mount a Handler directly to serve WebSocket alone.
type Handler struct {
	srv    Server
	opts   HandlerOptions
	ctx    context.Context // of every session; ends at Shutdown
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	closing   bool
	conns     map[*Stream]bool
	perClient map[string]int
	reserved  int           // admitted upgrades, open or being opened
	drained   chan struct{} // closed when reserved reaches 0 during Shutdown
}

// NewHandler returns a Handler serving srv. opts may be nil.
func NewHandler(srv Server, opts *HandlerOptions) *Handler {
	h := &Handler{srv: srv, conns: make(map[*Stream]bool), perClient: make(map[string]int)}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxConnections == 0 {
		h.opts.MaxConnections = DefaultMaxConnections
	}
	if h.opts.MaxConnectionsPerClient == 0 {
		h.opts.MaxConnectionsPerClient = DefaultMaxConnectionsPerClient
	}
	if h.opts.Logger == nil {
		h.opts.Logger = slog.Default()
	}
	h.ctx, h.cancel = context.WithCancelCause(context.Background())
	return h
}

// IsUpgrade reports whether r asks to upgrade its connection to
// WebSocket (RFC 6455 section 4.1).
func IsUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet &&
		hasToken(r.Header, "Connection", "upgrade") && hasToken(r.Header, "Upgrade", "websocket")
}

// hasToken reports whether the comma-separated values of header name hold
// token, ignoring case.
func hasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// ServeHTTP accepts one connection and starts its session.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.opts.Origins.Check(r); err != nil {
		refuse(w, http.StatusForbidden, "%v", err)
		return
	}
	if !IsUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		refuse(w, http.StatusUpgradeRequired, "this endpoint takes MCP over WebSocket: send a GET with Upgrade: websocket and Sec-WebSocket-Protocol: %s", Subprotocol)
		return
	}
	if !hasToken(r.Header, "Sec-WebSocket-Protocol", Subprotocol) {
		refuse(w, http.StatusBadRequest, "the WebSocket upgrade must offer the subprotocol %q (Sec-WebSocket-Protocol: %s)", Subprotocol, Subprotocol)
		return
	}
	client := sse.ClientKey(r)
	if status, err := h.reserve(client); err != nil {
		refuse(w, status, "%v", err)
		return
	}
	// Origins were checked above, by the policy the Streamable HTTP
	// endpoint uses, instead of the library's same-host rule.
	conn, err := ws.Accept(w, r, &ws.AcceptOptions{Subprotocols: []string{Subprotocol}, InsecureSkipVerify: true})
	if err != nil { // Accept has answered
		h.release(nil, client)
		h.opts.Logger.Debug("websocket: upgrade failed", "remote", r.RemoteAddr, "error", err)
		return
	}
	var s *Stream
	s = newStream(conn, h.opts.ConnOptions, context.WithoutCancel(r.Context()), func() { h.release(s, client) })
	if !h.track(s) {
		s.closeWith(ws.StatusGoingAway, "the server is shutting down")
		return
	}
	info := transport.SessionInfo{Principal: auth.PrincipalFrom(r.Context())}
	if err := h.srv.ConnectSession(h.ctx, s, info); err != nil {
		h.opts.Logger.Error("websocket: starting a session failed", "remote", r.RemoteAddr, "error", err)
		s.closeWith(ws.StatusInternalError, "the server could not start a session")
	}
}

// reserve counts in a connection of client, unless a limit refuses it:
// then it returns the HTTP status and the error to answer with.
func (h *Handler) reserve(client string) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch max, perClient := h.opts.MaxConnections, h.opts.MaxConnectionsPerClient; {
	case h.closing:
		return http.StatusServiceUnavailable, fmt.Errorf("%w; retry on another instance", ErrShutdown)
	case perClient > 0 && h.perClient[client] >= perClient:
		return http.StatusTooManyRequests, fmt.Errorf("%s holds %d WebSocket connections, the most one client may hold: close those it no longer uses, "+
			"or raise the limit (MaxConnectionsPerClient)", client, perClient)
	case max > 0 && h.reserved >= max:
		return http.StatusServiceUnavailable, fmt.Errorf("the server holds its limit of %d WebSocket connections; retry later, or raise MaxConnections", max)
	}
	h.reserved++
	h.perClient[client]++
	return 0, nil
}

// track registers an open connection for Shutdown; it fails once Shutdown
// has begun.
func (h *Handler) track(s *Stream) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	h.conns[s] = true
	return true
}

// release counts out a connection of client (s, when it was opened).
func (h *Handler) release(s *Stream, client string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.conns, s)
	h.reserved--
	if h.perClient[client]--; h.perClient[client] <= 0 {
		delete(h.perClient, client)
	}
	if h.reserved == 0 && h.drained != nil {
		close(h.drained)
		h.drained = nil
	}
}

// Shutdown stops the Handler: new upgrades are refused with 503, and every
// open connection is closed with code 1001 (going away), which ends its
// session and cancels its running requests. It returns once they are
// closed, or with ctx's error when ctx ends first.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	var drained chan struct{}
	if h.reserved > 0 {
		if h.drained == nil {
			h.drained = make(chan struct{})
		}
		drained = h.drained
	}
	streams := make([]*Stream, 0, len(h.conns))
	for s := range h.conns {
		streams = append(streams, s)
	}
	h.mu.Unlock()

	// The sessions' context ends last, so that their connections close
	// with 1001 rather than as sessions closed by the server (1000).
	defer h.cancel(ErrShutdown)
	for _, s := range streams {
		go s.closeWith(ws.StatusGoingAway, "the server is shutting down")
	}
	if drained == nil {
		return nil
	}
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("websocket: shutdown gave up waiting for connections to close: %w", ctx.Err())
	}
}
