// Command weft is the benchmark's one-tool echo server built on weft, used as
// its documentation shows: a typed tool added with server.AddTool (input
// schema derived from the argument struct and checked on every call).
//
// It serves stdio by default and Streamable HTTP at /mcp with -http ADDR
// (streamable.NewHandler, which answers with JSON when nothing comes before
// the response). With -tasks it also has a task runtime on the memory store,
// and echo may run as a task (task support optional): the server the task
// life figure is measured on.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/weftmcp/weft/bench/internal/servermain"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// echoArgs is the echo tool's input.
type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

// echo returns the text it is given as the call's only content.
func echo(_ context.Context, _ *server.Request, args echoArgs) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: args.Text}}}, nil
}

// newServer returns the weft server holding the echo tool; with rt, echo may
// run as a task on it.
func newServer(rt *tasks.Runtime, logger *slog.Logger) *server.Server {
	s := server.New(mcp.Implementation{Name: "weft-echo", Version: "1.0.0"}, &server.Options{Tasks: rt, Logger: logger})
	tool := &mcp.Tool{Name: "echo", Description: "Returns the text it is given."}
	if rt == nil {
		server.AddTool(s, tool, echo)
	} else {
		server.AddTool(s, tool, echo, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional}))
	}
	return s
}

func main() {
	withTasks := flag.Bool("tasks", false, "run a task runtime on the memory store and let echo run as a task")
	// Warnings and errors only: the task runtime writes an audit event per
	// task state change at Info level, which would measure stderr writes.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var rt *tasks.Runtime
	servermain.Main(servermain.Server{
		Name: "weft",
		Setup: func() error {
			if !*withTasks {
				return nil
			}
			var err error
			rt, err = tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithLogger(logger))
			if err != nil {
				return fmt.Errorf("start the task runtime: %w", err)
			}
			return nil
		},
		Stdio: func(ctx context.Context) error {
			return newServer(rt, logger).Run(ctx, transport.Stdio())
		},
		HTTP: func() http.Handler {
			// The harness opens all its sessions (1000 idle ones for the
			// memory figure) from one address.
			return streamable.NewHandler(newServer(rt, logger), &streamable.HandlerOptions{MaxSessionsPerClient: -1, Logger: logger})
		},
		Teardown: func(ctx context.Context) error {
			if rt == nil {
				return nil
			}
			return rt.Close(ctx)
		},
	})
}
