package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// ConnectOptions configure one connection served by Server.Connect. The zero
// value is usable.
type ConnectOptions struct {
	// SessionID names the legacy session; empty means a random 128-bit one.
	SessionID string
	// Principal is the identity the transport authenticated for this
	// connection, if any. Handlers see it as Request.Principal; without it a
	// legacy request's principal is the session ID and a modern one's is
	// empty.
	Principal string
	// MaxInFlight bounds how many requests are handled at once; 0 means the
	// jsonrpc default.
	MaxInFlight int
}

// Session is one connection served by a Server. On it, the client either
// initializes a legacy session (2024-11-05 … 2025-11-25) or sends modern
// (2026-07-28) requests, each served statelessly from its own _meta.
type Session struct {
	srv       *Server
	conn      *jsonrpc.Conn
	id        string
	principal string
	// stream is Connect's: a transport.Exchanges when its requests arrive in
	// HTTP exchanges (see exchange), a transport.SharedSession when the
	// session's state is kept in a shared store (see shared).
	stream jsonrpc.Stream
	recv   jsonrpc.Receiver // the connection's, when stream is a jsonrpc.PushStream (see pushWatch)
	parent context.Context  // Connect's: the session closes when it ends
	// handlersEnded reports, without a lock, that the handlers' context has
	// ended or must end once made (see handlersContext).
	handlersEnded atomic.Bool

	// What the session holds for its life is made on first use, under
	// lifeMu, so that an idle session costs little more than its fields.
	lifeMu   sync.Mutex
	finished bool               // the session has ended (see finish)
	done     chan struct{}      // closed by finish
	ctx      context.Context    // ends with the session (see lifetime)
	cancel   context.CancelFunc // ends ctx
	// handlers is what every handler's context is tied to (see link): it
	// ends, with the cause handlers see, when the client closes its input
	// or the session closes. Until it is made, handlersCause holds the
	// cause it must end with.
	handlers      context.Context
	cancelHandler context.CancelCauseFunc
	handlersCause error
	life          sessionLife // what the session hooks were told
	closeOnce     sync.Once
	closeErr      error

	mu          sync.Mutex
	phase       sessionPhase
	listChanged [featureResources + 1]bool // the lists initialize told this client may change
	takenOver   bool                       // the session was taken over from a shared store (see share)
	// parentWatched: the hub closes the session when parent ends (see
	// watchParent); guarded by the hub's mu.
	parentWatched bool
	version       string
	caps          mcp.ClientCapabilities
	client        mcp.Implementation
	level         mcp.LoggingLevel // from logging/setLevel; "" = no log messages
	initID        string           // raw id of the initialize request, which cannot be cancelled
	used          *sessionUse      // made on first use (see useLocked)
}

// sessionPhase is how far the legacy handshake has got.
type sessionPhase uint8

const (
	phaseNew          sessionPhase = iota // no initialize answered: modern requests, initialize or ping
	phaseInitializing                     // initialize answered, notifications/initialized not yet received
	phaseReady                            // initialized: change notifications flow
)

// Connect serves one connection over stream until the client closes it, ctx
// ends, or Close is called. It returns at once; use Wait to block.
func (s *Server) Connect(ctx context.Context, stream jsonrpc.Stream, opts *ConnectOptions) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("server: not connecting: %w", err)
	}
	var o ConnectOptions
	if opts != nil {
		o = *opts
	}
	if o.SessionID == "" {
		var b [16]byte
		rand.Read(b[:])
		o.SessionID = hex.EncodeToString(b[:])
	}
	ss := &Session{srv: s, id: o.SessionID, principal: o.Principal, parent: ctx, stream: stream}
	if err := ss.share(); err != nil {
		return nil, err
	}
	s.hub.addSession(ss) // before any request is served: tasks find their session by ID
	watched := ss.watch()
	ss.conn = jsonrpc.NewConn(watched, jsonrpc.ConnOptions{
		Handler:         (*sessionHandler)(ss),
		MaxInFlight:     o.MaxInFlight,
		AllowBatch:      ss.allowBatch,
		OnCallAbandoned: ss.callAbandoned,
		OnDone:          ss.finish,
		Logger:          s.logger,
	})
	s.hub.watchParent(ss)
	ss.tookOver()
	watched.start() // only now, with conn set, do messages reach the handlers
	return ss, nil
}

// ConnectSession starts serving a session an HTTP transport opened, over
// stream, as Connect does with the session's ID and principal from info; the
// session runs until stream.Read fails or ctx ends. It is the method of
// streamable.Server and sse.Server, so a *Server is what their NewHandler
// takes.
func (s *Server) ConnectSession(ctx context.Context, stream jsonrpc.Stream, info transport.SessionInfo) error {
	_, err := s.Connect(ctx, stream, &ConnectOptions{SessionID: info.ID, Principal: info.Principal})
	return err
}

// Run serves one connection over stream until the client closes it (then it
// returns nil) or ctx ends (then it returns ctx's error).
//
// When the client closes its input (a stdio client closing the server's
// stdin, which is how it shuts a server down), every running handler's
// context ends with ErrClientClosed: open subscriptions/listen streams end
// with their closing result, and Run returns once the handlers have
// returned and been answered. When ctx ends, the session is closed as by
// Session.Close and Run returns at once, even if a read of the stream
// cannot be interrupted (os.Stdin in blocking mode cannot): that read is
// abandoned, to end with the process.
func (s *Server) Run(ctx context.Context, stream jsonrpc.Stream) error {
	ss, err := s.Connect(ctx, stream, nil)
	if err != nil {
		return err
	}
	err = ss.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// ID returns the session's ID.
func (ss *Session) ID() string { return ss.id }

// ProtocolVersion returns the version negotiated by initialize, or "" before
// it (and on a connection used only for modern requests).
func (ss *Session) ProtocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

// ClientCapabilities returns what the client declared in initialize.
func (ss *Session) ClientCapabilities() mcp.ClientCapabilities {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.caps
}

// ClientInfo returns the client's self-description from initialize.
func (ss *Session) ClientInfo() mcp.Implementation {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.client
}

// Wait blocks until the session has ended and returns why: nil when the
// client closed the connection or Close was called, else the stream's error.
func (ss *Session) Wait() error {
	<-ss.doneChan()
	err := ss.conn.Err()
	if err == jsonrpc.ErrClosed || errors.Is(err, io.EOF) { // closed here, or by the client
		return nil
	}
	return err
}

// Close ends the session: every running handler's context ends with
// ErrSessionClosed, open subscriptions/listen streams end gracefully with
// their closing result (Close waits up to a second for those to be
// written), and the stream is closed. It returns once the session has
// ended, without waiting for a read of the stream that cannot be
// interrupted (see Run).
func (ss *Session) Close() error {
	err := ss.close(ErrSessionClosed)
	ss.finish()
	return err
}

// finish ends the session once: when its connection has ended (it is the
// connection's OnDone), or when it has been closed. It leaves the server,
// its context ends and Wait returns. The session holds no goroutine of its
// own meanwhile.
func (ss *Session) finish() {
	ss.lifeMu.Lock()
	if ss.finished {
		ss.lifeMu.Unlock()
		return
	}
	ss.finished = true
	cancel, done := ss.cancel, ss.done
	ss.lifeMu.Unlock()
	ss.srv.hub.removeSession(ss)
	ss.ended()
	if cancel != nil {
		cancel()
	}
	if done != nil {
		close(done)
	}
}

// doneChan returns the channel finish closes, making it on first use.
func (ss *Session) doneChan() <-chan struct{} {
	ss.lifeMu.Lock()
	defer ss.lifeMu.Unlock()
	if ss.done == nil {
		ss.done = make(chan struct{})
		if ss.finished {
			close(ss.done)
		}
	}
	return ss.done
}

// lifetime returns the session's context, which ends when the session
// ends, making it on first use.
func (ss *Session) lifetime() context.Context {
	ss.lifeMu.Lock()
	defer ss.lifeMu.Unlock()
	return ss.lifetimeLocked()
}

// lifetimeLocked is lifetime with lifeMu held.
func (ss *Session) lifetimeLocked() context.Context {
	if ss.ctx == nil {
		ss.ctx, ss.cancel = context.WithCancel(ss.parent)
		if ss.finished {
			ss.cancel()
		}
	}
	return ss.ctx
}

// handlersContext returns the context every handler's context is tied to
// (see link), making it on first use.
func (ss *Session) handlersContext() context.Context {
	ss.lifeMu.Lock()
	defer ss.lifeMu.Unlock()
	if ss.handlers == nil {
		ss.handlers, ss.cancelHandler = context.WithCancelCause(ss.lifetimeLocked())
		if ss.handlersCause != nil {
			ss.cancelHandler(ss.handlersCause)
		}
	}
	return ss.handlers
}

// postChange records a change notification for the session to send: a
// list (f != featureNone) or a resource (uri != "").
func (ss *Session) postChange(f feature, uri string) {
	ss.mu.Lock()
	u := ss.useLocked()
	if u.out == nil {
		u.out = newFlushingOutbox(ss.sendChanges)
	}
	out := u.out
	ss.mu.Unlock()
	out.post(f, uri)
}

// sendChanges sends the session's pending change notifications; its outbox
// runs it on a goroutine of its own while any are pending.
func (ss *Session) sendChanges() {
	ss.mu.Lock()
	out := ss.used.out // made before the outbox runs this
	ss.mu.Unlock()
	ctx := ss.lifetime()
	for {
		pending := out.take()
		if len(pending) == 0 {
			return
		}
		for _, g := range pending {
			msg, err := g.message(nil)
			if err == nil {
				err = ss.conn.Notify(ctx, msg.Method, msg.Params)
			}
			if err != nil && ctx.Err() == nil {
				ss.srv.logger.Warn("server: could not send a change notification", "session", ss.id, "method", g.method, "error", err)
			}
		}
	}
}

// sessionHandler is a Session as its connection's jsonrpc.Handler (a
// conversion, where a method value would cost an allocation per session).
type sessionHandler Session

// Handle serves one incoming message.
func (h *sessionHandler) Handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	return (*Session)(h).handle(ctx, req)
}

// handle serves one incoming message; it is the connection's handler.
func (ss *Session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.IsNotification() {
		ss.handleNotification(ctx, req)
		return nil, nil
	}
	rt, p, err := ss.srv.decodeRequest(req)
	if err != nil {
		return nil, err
	}
	if req.Method == mcp.MethodSubscriptionsListen {
		ss.trackListen(ctx, req.ID)
	}
	hc := ss.link(ctx)
	defer hc.detach()
	ctx = hc
	r := &Request{srv: ss.srv, via: ss, id: req.ID, method: req.Method, params: req.Params, meta: p.ParamsBase().Meta}
	ctx, r.exchange = ss.exchange(ctx, req.ID)
	ss.mu.Lock()
	phase := ss.phase
	if phase != phaseNew {
		ss.legacyLocked(r)
	}
	ss.mu.Unlock()
	switch {
	case phase != phaseNew:
	case isModernRequest(r.meta):
		if err := r.setModern(ss.principal, ""); err != nil {
			return nil, err
		}
		r.send = ss.send
	case req.Method == mcp.MethodInitialize || req.Method == mcp.MethodPing:
		ss.mu.Lock()
		ss.legacyLocked(r)
		ss.mu.Unlock()
	default:
		return nil, invalidParams("the connection is not initialized: send initialize first (protocol versions up to %s), "+
			"or put %s and %s in params._meta of every request (%s)",
			mcp.LatestLegacyVersion, mcp.MetaProtocolVersion, mcp.MetaClientCapabilities, mcp.Version20260728)
	}
	if err := r.readProgressToken(); err != nil {
		return nil, err
	}
	res, err := ss.srv.run(ctx, r, rt, p)
	if err != nil {
		return nil, err
	}
	if enc, ok := ss.srv.encodeTaskResult(res); ok {
		return enc, nil
	}
	return res, nil
}

// legacyLocked sets up r as a request of this legacy session; ss.mu is held.
func (ss *Session) legacyLocked(r *Request) {
	r.session = ss
	r.version = ss.version
	r.caps = ss.caps
	r.client = ss.client
	r.principal = ss.principal
	if r.principal == "" {
		r.principal = ss.id
	}
	r.send = ss.send
	r.asker = legacyAsker{session: ss}
}

// send writes a message related to a request on the connection.
func (ss *Session) send(ctx context.Context, msg *jsonrpc.Request) error {
	return ss.conn.Notify(ctx, msg.Method, msg.Params)
}

// notification handles an incoming notification.
func (ss *Session) notification(req *jsonrpc.Request) {
	switch req.Method {
	case mcp.NotificationInitialized:
		ss.mu.Lock()
		ready := ss.phase == phaseInitializing
		if ready {
			ss.phase = phaseReady
		}
		ss.mu.Unlock()
		if ready {
			ss.notified(req, ss.srv.opts.Sessions.Initialized)
		}
	case mcp.NotificationRootsListChanged:
		if ss.ProtocolVersion() != "" {
			ss.notified(req, ss.srv.opts.Sessions.RootsListChanged)
		}
	case mcp.NotificationCancelled:
		var p mcp.CancelledNotificationParams
		if decodeNotification(req, &p) != nil || !p.RequestID.IsValid() {
			return // malformed cancellations are ignored
		}
		ss.mu.Lock()
		isInit := p.RequestID.Raw() == ss.initID
		ss.mu.Unlock()
		if !isInit {
			ss.conn.CancelInbound(p.RequestID) // unknown or finished: nothing happens
		}
	case mcp.NotificationTasksStatus:
		// A client-hosted task changed (2025-11-25): wake its waiters, who
		// read the state with tasks/get.
		var p mcp.TaskStatusNotificationParams
		if decodeNotification(req, &p) == nil && p.TaskID != "" {
			ss.clientTaskChanged(p.TaskID)
		}
	}
}

// initialize completes the legacy handshake on the session.
func (ss *Session) initialize(p *mcp.InitializeParams, version string, declared mcp.ServerCapabilities) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.phase != phaseNew {
		return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session is already initialized (protocol version %s); initialize may be sent only once", ss.version)
	}
	ss.phase, ss.version, ss.caps, ss.client = phaseInitializing, version, p.Capabilities, p.ClientInfo
	ss.noteListChangedLocked(declared)
	return nil
}

// noteListChangedLocked records which lists the client was told may
// change; ss.mu is held.
func (ss *Session) noteListChangedLocked(declared mcp.ServerCapabilities) {
	ss.listChanged[featureTools] = declared.Tools != nil && declared.Tools.ListChanged
	ss.listChanged[featurePrompts] = declared.Prompts != nil && declared.Prompts.ListChanged
	ss.listChanged[featureResources] = declared.Resources != nil && declared.Resources.ListChanged
}

// allowBatch reports whether the negotiated version allows JSON-RPC batches.
func (ss *Session) allowBatch() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return mcp.AllowsBatch(ss.version)
}

// callAbandoned tells the client that the server stopped waiting for one of
// its own requests (a handler's context ended while the client was
// answering), giving the context's cause as the reason when it has one.
func (ss *Session) callAbandoned(id jsonrpc.ID, method string, cause error) {
	reason := "the server no longer needs the answer to " + method
	if cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
		reason += ": " + cause.Error()
	}
	msg, err := notification(mcp.NotificationCancelled, &mcp.CancelledNotificationParams{
		RequestID: id, Reason: reason})
	if err == nil {
		err = ss.conn.Notify(context.Background(), msg.Method, msg.Params)
	}
	if err != nil {
		ss.srv.logger.Debug("server: could not send notifications/cancelled", "session", ss.id, "id", id, "error", err)
	}
}

// logLevel returns the level set by logging/setLevel, "" when none.
func (ss *Session) logLevel() mcp.LoggingLevel {
	if rec := ss.stored(); rec != nil {
		return mcp.LoggingLevel(rec.Level)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.level
}

// wantsListChanged reports whether the session gets list_changed for f: it is
// initialized and was told the list may change.
func (ss *Session) wantsListChanged(f feature) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.phase == phaseReady && ss.listChanged[f]
}

// declared reports whether initialize declared the tools, prompts or
// resources capability of f to the session's client: the methods of f
// then exist for the session even once nothing of f is left. Every list
// the server declares may change, so what noteListChangedLocked recorded
// is what was declared.
func (ss *Session) declared(f feature) bool {
	if f > featureResources {
		return false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.phase != phaseNew && ss.listChanged[f]
}

// subscribed reports whether the session subscribed to uri.
func (ss *Session) subscribed(uri string) bool {
	if rec := ss.stored(); rec != nil {
		return slices.Contains(rec.Subscriptions, uri)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.used != nil && ss.used.subs[uri]
}

// decodeNotification decodes the params of an incoming notification.
func decodeNotification(req *jsonrpc.Request, v any) error {
	if len(req.Params) == 0 {
		return nil
	}
	return json.Unmarshal(req.Params, v)
}
