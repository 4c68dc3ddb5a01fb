package sse

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"runtime/debug"
	"sync"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// Server is the MCP server a Handler serves; *server.Server is one. Its
// method is also streamable.Server's, so one server satisfies both.
type Server interface {
	// ConnectSession starts serving one session over stream and returns at
	// once; the session runs until stream.Read fails. info names the
	// session (its sessionId) and the principal that opened it, the only
	// one whose messages reach it. ctx ends when the Handler shuts down.
	ConnectSession(ctx context.Context, stream jsonrpc.Stream, info transport.SessionInfo) error
}

// Defaults of HandlerOptions.
const (
	DefaultMaxSessions = 10000
	// DefaultMaxSessionsPerClient is 1% of DefaultMaxSessions: one client
	// cannot keep the others out.
	DefaultMaxSessionsPerClient = 100
)

// errTooManyClientSessions refuses a session to a client that holds as
// many as one client may.
var errTooManyClientSessions = errors.New("too many sessions for one client")

// HandlerOptions configures a Handler. The zero value gives safe defaults.
type HandlerOptions struct {
	// Endpoint is the URL (usually a path) the endpoint event tells clients
	// to POST to; the session is added as the sessionId query parameter.
	// Empty means the path of the GET request, so that one Handler mounted
	// at one path serves both.
	Endpoint string
	// MaxBodyBytes bounds a POST body; 0 means jsonrpc.DefaultMaxMessageSize.
	MaxBodyBytes int64
	// KeepAlive is how long an event stream may stay quiet before it gets
	// a comment line, which clients ignore but which keeps proxies from
	// closing the connection. 0 means DefaultKeepAlive; negative means
	// never.
	KeepAlive time.Duration
	// WriteTimeout bounds each write to an event stream: a client that
	// stops reading is taken as gone once a write has waited this long, and
	// the writes after it fail at once. 0 means DefaultWriteTimeout;
	// negative means no bound.
	WriteTimeout time.Duration
	// MaxSessions bounds the number of open streams; a GET beyond it is
	// refused with 503. 0 means DefaultMaxSessions; negative means no
	// bound.
	MaxSessions int
	// MaxSessionsPerClient bounds the open streams of one client: one
	// principal, or without authentication one remote address (see
	// ClientKey). A GET beyond it is refused with 429, saying which limit
	// was hit. 0 means DefaultMaxSessionsPerClient; negative means no
	// bound.
	MaxSessionsPerClient int
	// Origins keeps pages of other sites out, as in
	// streamable.HandlerOptions.
	Origins OriginPolicy
	// Logger receives the handler's diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Handler serves the HTTP+SSE transport of protocol version 2024-11-05: a
// GET opens a session's event stream, whose first event ("endpoint") names
// the URL to POST messages to; every POST is answered 202, and everything
// the server sends flows on the event stream as "message" events. The
// session lasts as long as the GET stream.
//
// Behind the auth package's middleware, a session belongs to the principal
// whose GET opened it (a POST from anyone else gets 404), and each POSTed
// request needs the scopes auth.Authorize names (else 403).
type Handler struct {
	srv  Server
	opts HandlerOptions

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*session
	ofClient map[string]int // open sessions per client (session.client)
	closing  bool
	streams  sync.WaitGroup
}

// NewHandler returns a Handler serving srv. opts may be nil.
func NewHandler(srv Server, opts *HandlerOptions) *Handler {
	h := &Handler{srv: srv, sessions: make(map[string]*session), ofClient: make(map[string]int)}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = jsonrpc.DefaultMaxMessageSize
	}
	if h.opts.MaxSessions == 0 {
		h.opts.MaxSessions = DefaultMaxSessions
	}
	if h.opts.MaxSessionsPerClient == 0 {
		h.opts.MaxSessionsPerClient = DefaultMaxSessionsPerClient
	}
	if h.opts.KeepAlive == 0 {
		h.opts.KeepAlive = DefaultKeepAlive
	}
	if h.opts.WriteTimeout == 0 {
		h.opts.WriteTimeout = DefaultWriteTimeout
	}
	if h.opts.Logger == nil {
		h.opts.Logger = slog.Default()
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	return h
}

// ServeHTTP serves a GET (a new session's stream) or a POST (a message for
// the session named by the sessionId query parameter). A page from another
// origin that HandlerOptions.Origins admits may use it too (see AllowCORS).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.opts.Logger.Error("sse: panic serving a request", "panic", v, "stack", string(debug.Stack()))
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}()
	if err := h.opts.Origins.Check(r); err != nil {
		forbid(w, err)
		return
	}
	if r.Method == http.MethodOptions {
		ServeOptions(w, r, "GET, POST")
		return
	}
	AllowCORS(w, r, "WWW-Authenticate")
	switch r.Method {
	case http.MethodGet:
		h.serveStream(w, r)
	case http.MethodPost:
		h.servePost(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, fmt.Sprintf("method %s is not allowed: GET opens a session, POST sends it a message", r.Method), http.StatusMethodNotAllowed)
	}
}

// serveStream opens a session: it sends the endpoint event, connects the
// server and carries the server's messages until the client goes away or
// the Handler shuts down.
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request) {
	s, err := h.open(w, auth.PrincipalFrom(r.Context()), ClientKey(r))
	if errors.Is(err, errTooManyClientSessions) {
		http.Error(w, err.Error(), http.StatusTooManyRequests)
		return
	}
	if err != nil {
		w.Header().Set("Retry-After", "10")
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer h.streams.Done()
	defer h.close(s)
	endpoint := h.opts.Endpoint
	if endpoint == "" {
		endpoint = r.URL.Path
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		http.Error(w, fmt.Sprintf("HandlerOptions.Endpoint %q is not a URL: %v", endpoint, err), http.StatusInternalServerError)
		return
	}
	q := u.Query()
	q.Set("sessionId", s.id)
	u.RawQuery = q.Encode()

	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := s.send(Event{Name: "endpoint", Data: []byte(u.String())}); err != nil {
		return
	}
	if err := h.connect(s); err != nil {
		h.opts.Logger.Error("sse: the server could not start a session", "error", err)
		return
	}
	select {
	case <-r.Context().Done():
	case <-s.done:
	case <-h.ctx.Done():
	}
}

// open registers a new session of principal, counted against client,
// writing to w.
func (h *Handler) open(w http.ResponseWriter, principal, client string) (*session, error) {
	var b [16]byte
	rand.Read(b[:])
	s := newSession(h, base64.RawURLEncoding.EncodeToString(b[:]), principal, client, w)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closing:
		return nil, errors.New("the server is shutting down; retry on another instance")
	case h.opts.MaxSessionsPerClient > 0 && h.ofClient[client] >= h.opts.MaxSessionsPerClient:
		return nil, fmt.Errorf("%w: %s holds %d open event streams, the most one client may hold; close the ones it no longer uses, "+
			"or raise the limit (HandlerOptions.MaxSessionsPerClient)", errTooManyClientSessions, client, h.opts.MaxSessionsPerClient)
	case h.opts.MaxSessions > 0 && len(h.sessions) >= h.opts.MaxSessions:
		return nil, fmt.Errorf("the server holds its limit of %d sessions; retry later, or raise HandlerOptions.MaxSessions", h.opts.MaxSessions)
	}
	h.sessions[s.id] = s
	h.ofClient[client]++
	h.streams.Add(1)
	return s, nil
}

// connect hands a new session to the server.
func (h *Handler) connect(s *session) (err error) {
	defer func() {
		if v := recover(); v != nil {
			h.opts.Logger.Error("sse: panic connecting a session", "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("the server panicked: %v", v)
		}
	}()
	return h.srv.ConnectSession(h.ctx, s, transport.SessionInfo{ID: s.id, Principal: s.principal})
}

// close ends a session and forgets it.
func (h *Handler) close(s *session) {
	h.mu.Lock()
	delete(h.sessions, s.id)
	if h.ofClient[s.client]--; h.ofClient[s.client] <= 0 {
		delete(h.ofClient, s.client)
	}
	h.mu.Unlock()
	s.end()
}

// servePost delivers a POSTed message to its session.
func (h *Handler) servePost(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	if id == "" {
		http.Error(w, "the sessionId query parameter is missing: POST to the URL of the endpoint event", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil || s.principal != auth.PrincipalFrom(r.Context()) { // another's session looks missing
		http.Error(w, "session not found: its event stream has closed; open a new one with GET", http.StatusNotFound)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, fmt.Sprintf("Content-Type must be application/json, not %q", r.Header.Get("Content-Type")), http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("the message is larger than %d bytes", h.opts.MaxBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading the message: "+err.Error(), http.StatusBadRequest)
		return
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		var de *jsonrpc.DecodeError
		if errors.As(err, &de) && de.IsResponse && de.ID.IsValid() && !de.ID.IsNull() {
			// A malformed answer to one of the server's calls fails that
			// call, as over stdio; the POST is refused all the same.
			s.push(de)
		}
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := authorize(r.Context(), msg); err != nil {
		auth.WriteError(w, err)
		return
	}
	if !s.push(msg) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, fmt.Sprintf("the session has %d messages the server has not read yet; retry later", maxUnread), http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "Accepted")
}

// Shutdown refuses new sessions and ends every open stream; it returns
// once their handlers have returned or ctx ends.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	h.cancel()
	done := make(chan struct{})
	go func() {
		h.streams.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sse: shutdown: %w", ctx.Err())
	}
}
