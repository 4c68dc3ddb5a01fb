package streamable

import (
	"context"
	stdjson "encoding/json"
	"log/slog"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/sse"
	"github.com/weftmcp/weft/transport/websocket"
)

// Defaults of HandlerOptions.
const (
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultMaxSessions        = 10000
	DefaultRetryInterval      = time.Second
	DefaultWriteTimeout       = 30 * time.Second
)

// DefaultMaxSessionsPerClient is the default of
// HandlerOptions.MaxSessionsPerClient: 1% of DefaultMaxSessions, so that
// one client cannot keep the others out.
const DefaultMaxSessionsPerClient = 100

// HandlerOptions configures a Handler. The zero value gives safe defaults.
type HandlerOptions struct {
	// SessionIdleTimeout ends a legacy session that has had no request and
	// no open stream for this long. 0 means DefaultSessionIdleTimeout; a
	// negative value keeps idle sessions until they are deleted.
	SessionIdleTimeout time.Duration
	// MaxSessions bounds the number of live legacy sessions started on
	// this Handler (not those it took over from a shared store); an
	// initialize beyond it is refused with 503 and Retry-After (when
	// sessions idle past SessionIdleTimeout cannot be reclaimed to make
	// room). 0 means DefaultMaxSessions; negative means no bound.
	MaxSessions int
	// MaxSessionsPerClient bounds the live legacy sessions one client
	// started on this Handler: one principal, or without authentication
	// one remote address (see sse.ClientKey). An initialize beyond it is refused with 429 and a
	// JSON-RPC error saying which limit was hit. Behind a reverse proxy
	// every unauthenticated client has the proxy's address: authenticate
	// clients, or raise this. 0 means DefaultMaxSessionsPerClient;
	// negative means no bound.
	MaxSessionsPerClient int
	// MaxBodyBytes bounds a POST body; a larger one is refused with 413. 0
	// means jsonrpc.DefaultMaxMessageSize (4 MiB).
	MaxBodyBytes int64
	// Sessions keeps legacy sessions where every Handler sharing the store
	// serves them (several instances behind a load balancer, or one
	// restarted): a request naming a session another instance started is
	// served from the stored state, without a new initialize; DELETE ends
	// a session everywhere; SessionIdleTimeout holds for the cluster. Each
	// request of a session then costs one round trip to the store. Nil
	// keeps sessions in this Handler's memory only.
	Sessions sessions.Store
	// Messages and Bus, with Sessions, route the server-to-client messages
	// of shared sessions between the Handlers serving them: a request or
	// notification a handler sends outside its own request's stream
	// reaches the client's GET stream on whichever Handler holds it; the
	// client's answer to a server-to-client request, and its
	// notifications/cancelled, reach the Handler awaiting them wherever
	// they are POSTed; and the GET stream resumes on any Handler with
	// Last-Event-ID, from the log Messages keeps. Such messages then cost
	// store round trips and a bus signal; a session's requests do not.
	// The Handler also joins a Server that is a ClusterMember (as
	// *server.Server is) to the cluster, so that resources/updated and
	// list_changed reach the sessions of every instance. Without both, a
	// Handler delivers only on the streams it holds.
	Messages sessions.MessageLog
	Bus      tasks.Bus
	// EventStore keeps the events of legacy SSE streams for resumption with
	// Last-Event-ID. Nil means a MemoryEventStore of DefaultEventStoreBytes.
	EventStore EventStore
	// RetryInterval is sent as the "retry" field of the priming event that
	// opens each legacy SSE stream (protocol 2025-11-25 and later): how long
	// a client waits before reconnecting. 0 means DefaultRetryInterval.
	RetryInterval time.Duration
	// KeepAlive is how long an SSE response (a GET stream, a request's
	// stream, a subscriptions/listen stream) may stay quiet before it gets
	// a comment line, which clients ignore but which keeps proxies from
	// closing the connection. 0 means sse.DefaultKeepAlive; negative means
	// never.
	KeepAlive time.Duration
	// WriteTimeout bounds each write to an SSE response, and the write of
	// a JSON answer's body: a client that stops reading is taken as gone
	// once a write has waited this long (a legacy client resumes with
	// Last-Event-ID, and loses a JSON answer; a modern request is
	// cancelled). 0 means DefaultWriteTimeout; negative means no bound.
	WriteTimeout time.Duration

	// Origins keeps pages of other sites out (cross-site requests and DNS
	// rebinding). With the zero value, a request whose Origin names
	// neither the local machine nor an allowed origin is refused with 403
	// on any address, and one arriving on a loopback address also needs a
	// local Host; requests without Origin are served. See sse.OriginPolicy.
	Origins sse.OriginPolicy

	// ToolInputSchema returns the inputSchema of a tool, for checking the
	// Mcp-Param-* headers of a modern tools/call against its arguments
	// (parameters marked x-mcp-header). Nil means the Server's own
	// (ToolSchemas), when it has one; otherwise the check is skipped.
	// Parsed schemas are cached per tool until the returned schema changes.
	ToolInputSchema func(ctx context.Context, tool string) (stdjson.RawMessage, bool)

	// WebSocket configures the WebSocket sessions the Handler opens for a
	// GET that asks to upgrade (see package websocket): keep-alive pings
	// and write timeout. Its MaxMessageSize defaults to MaxBodyBytes; the
	// connections are checked by Origins and counted against MaxSessions,
	// apart from the HTTP sessions.
	WebSocket websocket.ConnOptions

	// Logger receives the handler's diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// webSocketOptions returns the options of the Handler's WebSocket side.
func (o *HandlerOptions) webSocketOptions() *websocket.HandlerOptions {
	conn := o.WebSocket
	if conn.MaxMessageSize <= 0 {
		conn.MaxMessageSize = int(o.MaxBodyBytes)
	}
	return &websocket.HandlerOptions{ConnOptions: conn, Origins: o.Origins, MaxConnections: o.MaxSessions, MaxConnectionsPerClient: o.MaxSessionsPerClient, Logger: o.Logger}
}

// withDefaults returns a copy of o (which may be nil) with defaults filled in.
func (o *HandlerOptions) withDefaults() HandlerOptions {
	var c HandlerOptions
	if o != nil {
		c = *o
	}
	if c.SessionIdleTimeout == 0 {
		c.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if c.MaxSessions == 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.MaxSessionsPerClient == 0 {
		c.MaxSessionsPerClient = DefaultMaxSessionsPerClient
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = jsonrpc.DefaultMaxMessageSize
	}
	if c.EventStore == nil {
		c.EventStore = NewMemoryEventStore(0)
	}
	if c.RetryInterval <= 0 {
		c.RetryInterval = DefaultRetryInterval
	}
	if c.KeepAlive == 0 {
		c.KeepAlive = sse.DefaultKeepAlive
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
