package client

import (
	"context"
	"log/slog"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// Defaults for Options.
const (
	// DefaultMaxInputRounds is how many input_required results one call
	// answers before it fails with ErrTooManyInputRounds.
	DefaultMaxInputRounds = 10
	// DefaultProbeTimeout bounds the server/discover probe of version
	// discovery; a server that has not answered by then is taken as legacy.
	DefaultProbeTimeout = 5 * time.Second
)

// CreateMessageHandler samples an LLM for the server (sampling/createMessage).
type CreateMessageHandler func(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)

// ElicitHandler asks the user for input on the server's behalf
// (elicitation/create), in one mode: a form or a URL to visit.
type ElicitHandler func(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error)

// ListRootsHandler tells the server which roots it may operate on (roots/list).
type ListRootsHandler func(ctx context.Context) (*mcp.ListRootsResult, error)

// Options configures a Client. The zero value is usable: it discovers the
// protocol version and declares no client capabilities.
//
// The handlers serve the server's requests for input in both eras: legacy
// server-to-client requests and the input requests of a modern
// input_required result. Setting a handler declares the matching client
// capability; a server asking for something without a handler gets -32601
// (no handler for the kind of request at all) or -32602 (an elicitation mode
// or sampling with tools that is not supported) on a legacy session, and the
// call fails with an error wrapping ErrNoHandler on a modern one.
//
// The notification callbacks run on the connection's read loop, in the order
// the notifications arrive. They must return quickly and must not wait for a
// call on the same session (start a goroutine for that), or the session
// stops reading.
type Options struct {
	// ProtocolVersion pins the protocol version. Empty discovers it: the
	// client probes with server/discover, speaks 2026-07-28 when the server
	// does, and otherwise falls back to the initialize handshake with the
	// newest legacy version. A pinned legacy version skips the probe; a pinned
	// modern version fails to connect to a server that does not speak it.
	ProtocolVersion string
	// ProbeTimeout bounds the server/discover probe; 0 means
	// DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// Extensions are the extensions the client declares, by identifier,
	// with their settings: for example mcp.ExtensionUI with
	// mcp.UIClientCapability() for a host that renders MCP Apps. The tasks
	// extension is the session's own to declare and is ignored here.
	Extensions map[string]mcp.JSONObject

	// CreateMessage serves sampling/createMessage.
	CreateMessage CreateMessageHandler
	// SamplingTools declares that CreateMessage accepts tools and toolChoice
	// (2025-11-25 and later). Without it a sampling request offering tools
	// is refused.
	SamplingTools bool
	// ElicitForm serves form-mode elicitation/create (2025-06-18 and later).
	// An accepted answer that leaves out fields is completed with their
	// defaults from the requested schema (SEP-1034) before it is sent.
	ElicitForm ElicitHandler
	// ElicitURL serves URL-mode elicitation/create (2025-11-25 and later).
	ElicitURL ElicitHandler
	// ListRoots serves roots/list. On a legacy session the client declares
	// roots.listChanged; call Session.NotifyRootsListChanged when they change.
	ListRoots ListRootsHandler

	// LogLevel is the minimum level of the log messages a modern server
	// sends with each request's response (_meta logLevel); empty asks for
	// none. WithLogLevel overrides it per call and Session.SetLoggingLevel
	// for the session. Legacy sessions use Session.SetLoggingLevel instead.
	LogLevel mcp.LoggingLevel
	// OnLog receives notifications/message.
	OnLog func(ctx context.Context, params *mcp.LoggingMessageNotificationParams)
	// OnToolsListChanged receives notifications/tools/list_changed.
	OnToolsListChanged func(ctx context.Context, params *mcp.ToolListChangedNotificationParams)
	// OnPromptsListChanged receives notifications/prompts/list_changed.
	OnPromptsListChanged func(ctx context.Context, params *mcp.PromptListChangedNotificationParams)
	// OnResourcesListChanged receives notifications/resources/list_changed.
	OnResourcesListChanged func(ctx context.Context, params *mcp.ResourceListChangedNotificationParams)
	// OnResourceUpdated receives notifications/resources/updated.
	OnResourceUpdated func(ctx context.Context, params *mcp.ResourceUpdatedNotificationParams)
	// OnElicitationComplete receives notifications/elicitation/complete
	// (2025-11-25 only): a URL-mode elicitation finished.
	OnElicitationComplete func(ctx context.Context, params *mcp.ElicitationCompleteNotificationParams)
	// OnTaskStatus receives the status notifications of tasks the server
	// runs: notifications/tasks/status (2025-11-25) and notifications/tasks
	// (the tasks extension, on a subscription opened with Listen and
	// SubscriptionFilter.TaskIDs). Servers need not send them; Wait polls.
	OnTaskStatus func(ctx context.Context, state *TaskState)

	// Tasks, when set, runs the sampling/createMessage and
	// elicitation/create a 2025-11-25 server sends as tasks (client-hosted
	// tasks) with the handlers above: the client declares the matching
	// tasks capability (with tasks/list and tasks/cancel), answers such a
	// request with the created task at once, serves the server's tasks/get,
	// tasks/result, tasks/list and tasks/cancel, and sends
	// notifications/tasks/status as the task changes. New registers its
	// handlers for those two methods on the runtime, so use one runtime per
	// Client; the caller closes it. Modern versions have no client-hosted
	// tasks. For one process:
	//
	//	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus())
	Tasks *tasks.Runtime

	// MaxInputRounds is how many input_required results one call answers
	// before failing with ErrTooManyInputRounds; 0 means
	// DefaultMaxInputRounds.
	MaxInputRounds int
	// Logger receives the client's diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// Middleware wraps the sending of every request and notification, in
	// order: the first is outermost. It sees every message the session
	// sends, the handshake and the retries of multi round-trip requests
	// included. None costs nothing.
	Middleware []Middleware
	// ServeMiddleware wraps the serving of every request and notification
	// the server sends the session, in order: the first is outermost. None
	// costs nothing.
	ServeMiddleware []ServeMiddleware
}
