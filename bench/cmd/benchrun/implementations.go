package main

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
	// HTTPArgs are its flags for the throughput runs over HTTP.
	HTTPArgs []string
	// TaskArgs are the flags that give it a task runtime on which echo may
	// run as a 2025-11-25 task, for the task life figure (added to HTTPArgs
	// over HTTP); nil when it has no tasks, and then that figure is not
	// measured.
	TaskArgs []string
	// SessionArgs are its flags for the idle-session measurement, which
	// needs a configuration that keeps legacy sessions.
	SessionArgs []string
	// Setup says, for the report, how it is configured and why.
	Setup string
}

// implementations lists every server the benchmark knows, the subject first
// and the floor last; the report keeps this order.
func implementations() []implementation {
	return []implementation{
		{
			Name:     "weft",
			Package:  "./servers/weft",
			Library:  "github.com/weftmcp/weft",
			TaskArgs: []string{"-tasks"},
			Setup: "Typed tool through `server.AddTool` (input schema derived from the argument struct and validated on every call; " +
				"the handler returns an `*mcp.CallToolResult` holding one text block, as gosdk's does). Stdio: `Server.Run` with " +
				"`transport.Stdio()`. HTTP: `streamable.NewHandler` with default options, which keeps legacy sessions " +
				"(`Mcp-Session-Id`) and answers with plain JSON when nothing comes before the response. Logging at Warn level. " +
				"The task life figure runs it with `-tasks`: a task runtime on the memory store (`tasks.NewMemoryStore`, " +
				"`tasks.NewMemoryBus`, defaults otherwise) and echo registered with task support optional.",
		},
		{
			Name:    "gosdk",
			Package: "./servers/gosdk",
			Library: "github.com/modelcontextprotocol/go-sdk",
			// Stateful (no flag): measured faster than -stateless for this
			// client, which builds a temporary session per request.
			HTTPArgs:    nil,
			SessionArgs: nil,
			Setup: "Typed tool through `mcp.AddTool` (input schema inferred from the argument struct and validated on every call, " +
				"as the SDK always does for typed tools). Stdio: `Server.Run` with `StdioTransport`. HTTP: `NewStreamableHTTPHandler` " +
				"with `JSONResponse: true` (plain JSON answers instead of one-event SSE streams) in the default stateful mode, " +
				"which keeps a session per `Mcp-Session-Id`; its `Stateless: true` mode was slower for this client, since it " +
				"builds a temporary session for every request. The idle-session figure uses the same stateful mode.",
		},
		{
			Name:        "mcpgo",
			Package:     "./servers/mcpgo",
			Library:     "github.com/mark3labs/mcp-go",
			HTTPArgs:    []string{"-sessions", "generated"},
			SessionArgs: []string{"-sessions", "stateful"},
			Setup: "Tool from `mcp.NewTool` with a handler reading `RequireString(\"text\")`, as the README shows (no input " +
				"schema validation, the library's default). Stdio: `NewStdioServer(...).Listen` with the default worker pool. " +
				"HTTP: `NewStreamableHTTPServer` with the library's default session manager, which issues session ids but " +
				"keeps no per-session state; measured, it is as fast as or faster than its stateful and stateless modes. Its " +
				"answers are plain JSON. Since that mode holds nothing per session, the idle-session figure uses " +
				"`WithStateful(true)`, which tracks sessions.",
		},
		{
			Name:    "bare",
			Package: "./servers/bare",
			Setup: "The floor: a hand-written standard-library JSON-RPC loop with `encoding/json`. Stdio: one goroutine reads " +
				"lines, each request runs in its own goroutine (as any server that honours `notifications/cancelled` must), " +
				"answers are written whole under a mutex. HTTP: `net/http`, legacy sessions in a map from id to negotiated " +
				"version, plain JSON answers.",
		},
	}
}
