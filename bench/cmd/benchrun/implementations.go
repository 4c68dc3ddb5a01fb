package main

import (
	"slices"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
	"github.com/weftmcp/weft/bench/internal/placement"
)

// implementation is one server under test. Adding one to the benchmark is
// one entry in implementations: a main package under servers/ that serves
// stdio by default and Streamable HTTP at /mcp with -http ADDR.
type implementation struct {
	// Name names it in tables and names its binary.
	Name string
	// Package is its main package, relative to the bench module.
	Package string
	// Library is the module path of the library it is built on, whose
	// version the report states; empty for one built on nothing.
	Library string
	// StdioArgs and HTTPArgs are its flags for every row over stdio and
	// over HTTP.
	StdioArgs []string `json:",omitempty"`
	HTTPArgs  []string `json:",omitempty"`
	// StdioOnly is set for a server that has no HTTP rows (nor idle
	// sessions).
	StdioOnly bool `json:",omitempty"`
	// TaskStores are the stores it runs the task life on (nil: it has no
	// tasks); TaskSurfaces the task surfaces it serves there.
	TaskStores   []string          `json:",omitempty"`
	TaskSurfaces []mcpwire.Surface `json:",omitempty"`
	// MemoryTaskArgs are its flags for tasks when it cannot be pointed at a
	// store (its tasks live in its own memory); nil means it takes the
	// placement's flags (-store, -store-at, -store-scope).
	MemoryTaskArgs []string `json:",omitempty"`
	// SessionArgs are its flags for the idle-session measurement, which
	// needs a configuration that keeps legacy sessions.
	SessionArgs []string `json:",omitempty"`
	// Variants are configurations of it measured with echo calls beside
	// the plain one.
	Variants []variant `json:",omitempty"`
	// Setup says, for the report, how it is configured and why.
	Setup string
}

// variant is a configuration of an implementation measured with echo calls
// beside its plain one, in a section of its own.
type variant struct {
	// Name names it in tables.
	Name string
	// Section is the report section it belongs to.
	Section section
	// Args are the flags added to the implementation's own.
	Args []string
	// Store, when set, is the store the variant keeps state in, given to
	// it as a placement's flags.
	Store string `json:",omitempty"`
	// HTTPOnly is set for a variant that only means something over HTTP.
	HTTPOnly bool `json:",omitempty"`
}

// taskArgs are impl's flags for a task life on p.
func (impl implementation) taskArgs(p *placement.Placement) []string {
	if impl.MemoryTaskArgs != nil {
		return slices.Clone(impl.MemoryTaskArgs)
	}
	return p.ServerArgs()
}

// implementations lists every server the benchmark knows, the subject first
// and the floors last; the report keeps this order.
func implementations() []implementation {
	return []implementation{
		{
			Name:         "weft",
			Package:      "./servers/weft",
			Library:      "github.com/weftmcp/weft",
			TaskStores:   []string{"memory", "sqlite", "redis", "postgres"},
			TaskSurfaces: mcpwire.Surfaces(),
			Variants: []variant{
				{Name: "weft, modern era", Section: sectionModern},
				{Name: "weft, otel sampled-out", Section: sectionOTel, Args: []string{"-otel", "sampled-out"}},
				{Name: "weft, otel recording", Section: sectionOTel, Args: []string{"-otel", "recording"}},
				{Name: "weft, sessions on redis", Section: sectionSharedSessions, Args: []string{"-shared-sessions", "-tasks=false"}, Store: "redis", HTTPOnly: true},
				{Name: "weft, sessions on postgres", Section: sectionSharedSessions, Args: []string{"-shared-sessions", "-tasks=false"}, Store: "postgres", HTTPOnly: true},
				{Name: "weft, sessions on sqlite", Section: sectionSharedSessions, Args: []string{"-shared-sessions", "-tasks=false"}, Store: "sqlite", HTTPOnly: true},
			},
			Setup: "Typed tool through `server.AddTool` (input schema derived from the argument struct and validated on every call; " +
				"the handler returns an `*mcp.CallToolResult` holding one text block, as gosdk's does). Stdio: `Server.Run` with " +
				"`transport.Stdio()`. HTTP: `streamable.NewHandler` with default options but `MaxSessionsPerClient: -1` (the harness " +
				"opens every session from one address), which keeps legacy sessions (`Mcp-Session-Id`) in memory and answers with " +
				"plain JSON when nothing comes before the response. Logging at Warn level. The task life rows run it with " +
				"`-store KIND`: a task runtime (`tasks.New`, defaults otherwise) on the memory store, an SQLite file (driver " +
				"defaults, as the CLI opens it: full sync), or the Redis or PostgreSQL the tests use (key prefix or schema of " +
				"the row's own), with echo registered with task support optional. `-otel` adds `weftotel` server middleware; " +
				"`-shared-sessions -tasks=false` keeps legacy sessions in the store's session store (`HandlerOptions.Sessions`) with no task " +
				"runtime, so the store sees the sessions' traffic alone.",
		},
		{
			Name:    "gosdk",
			Package: "./servers/gosdk",
			Library: "github.com/modelcontextprotocol/go-sdk",
			// Stateful (no flag): measured faster than -stateless for this
			// client, which builds a temporary session per request.
			Setup: "Typed tool through `mcp.AddTool` (input schema inferred from the argument struct and validated on every call, " +
				"as the SDK always does for typed tools). Stdio: `Server.Run` with `StdioTransport`. HTTP: `NewStreamableHTTPHandler` " +
				"with `JSONResponse: true` (plain JSON answers instead of one-event SSE streams) in the default stateful mode, " +
				"which keeps a session per `Mcp-Session-Id`; its `Stateless: true` mode was slower for this client, since it " +
				"builds a temporary session for every request. The idle-session figure uses the same stateful mode.",
		},
		{
			Name:           "mcpgo",
			Package:        "./servers/mcpgo",
			Library:        "github.com/mark3labs/mcp-go",
			HTTPArgs:       []string{"-sessions", "generated"},
			SessionArgs:    []string{"-sessions", "stateful"},
			TaskStores:     []string{"memory"},
			TaskSurfaces:   []mcpwire.Surface{mcpwire.LegacyTasks},
			MemoryTaskArgs: []string{"-tasks"},
			Setup: "Tool from `mcp.NewTool` with a handler reading `RequireString(\"text\")`, as the README shows (no input " +
				"schema validation, the library's default). Stdio: `NewStdioServer(...).Listen` with the default worker pool. " +
				"HTTP: `NewStreamableHTTPServer` with the library's default session manager, which issues session ids but " +
				"keeps no per-session state; measured, it is as fast as or faster than its stateful and stateless modes. Its " +
				"answers are plain JSON. Since that mode holds nothing per session, the idle-session figure uses " +
				"`WithStateful(true)`, which tracks sessions. The task life row runs it with `-tasks`: " +
				"`WithTaskCapabilities(true, true, true)` and echo declared with `mcp.WithTaskSupport(mcp.TaskSupportOptional)`, " +
				"on the library's in-memory tasks (2025-11-25 surface only; it has no store to point elsewhere, and a task " +
				"created without a TTL, as the harness creates them, is never removed).",
		},
		{
			Name:    "bare",
			Package: "./servers/bare",
			Setup: "A floor: a hand-written standard-library JSON-RPC loop with `encoding/json`. Stdio: one goroutine reads " +
				"lines, each request runs in its own goroutine (as any server that honours `notifications/cancelled` must), " +
				"answers are written whole under a mutex. HTTP: `net/http`, legacy sessions in a map from id to negotiated " +
				"version, plain JSON answers.",
		},
		{
			Name:      "bare-serial",
			Package:   "./servers/bare",
			StdioArgs: []string{"-serial"},
			StdioOnly: true,
			Setup: "The stdio floor: bare's stdio loop with `-serial`, which answers each request on the reading goroutine " +
				"before reading the next, with no goroutine and no lock. It is the least a Go stdio server can do per call, " +
				"but not a valid MCP server: it cannot see `notifications/cancelled` while a request runs. Stdio rows only.",
		},
	}
}
