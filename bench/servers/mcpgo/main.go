// Command mcpgo is the benchmark's one-tool echo server built on
// github.com/mark3labs/mcp-go, used as its README shows: a tool declared with
// mcp.NewTool and a handler that reads its argument with RequireString.
//
// It serves stdio by default and Streamable HTTP at /mcp with -http ADDR.
// With -tasks, echo may run as a 2025-11-25 task (mcp.WithTaskSupport
// optional) on the library's in-memory tasks (WithTaskCapabilities). And
// -sessions picks the library's HTTP session manager: "generated" (the
// library default: ids issued but not tracked), "stateful" (ids tracked and
// checked) or "stateless" (no ids).
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/weftmcp/weft/bench/internal/servermain"
)

// echo returns the text it is given as the call's only content.
func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, err := req.RequireString("text")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(text), nil
}

// newServer returns the library's server holding the echo tool; withTasks
// lets echo run as a task.
func newServer(withTasks bool) *server.MCPServer {
	opts := []server.ServerOption{server.WithToolCapabilities(false)}
	toolOpts := []mcp.ToolOption{
		mcp.WithDescription("Returns the text it is given."),
		mcp.WithString("text", mcp.Required(), mcp.Description("the text to return")),
	}
	if withTasks {
		opts = append(opts, server.WithTaskCapabilities(true, true, true))
		toolOpts = append(toolOpts, mcp.WithTaskSupport(mcp.TaskSupportOptional))
	}
	s := server.NewMCPServer("mcpgo-echo", "1.0.0", opts...)
	s.AddTool(mcp.NewTool("echo", toolOpts...), echo)
	return s
}

// sessionOption maps the -sessions flag to the library's option.
func sessionOption(mode string) (server.StreamableHTTPOption, error) {
	switch mode {
	case "generated":
		return server.WithSessionIdManager(&server.StatelessGeneratingSessionIdManager{}), nil
	case "stateful":
		return server.WithStateful(true), nil
	case "stateless":
		return server.WithStateLess(true), nil
	default:
		return nil, fmt.Errorf("-sessions %q is not one of generated, stateful, stateless", mode)
	}
}

func main() {
	sessions := flag.String("sessions", "generated", "HTTP session manager: generated, stateful or stateless")
	withTasks := flag.Bool("tasks", false, "let echo run as a task on the library's in-memory tasks")
	servermain.Main(servermain.Server{
		Name: "mcpgo",
		Stdio: func(ctx context.Context) error {
			return server.NewStdioServer(newServer(*withTasks)).Listen(ctx, os.Stdin, os.Stdout)
		},
		HTTP: func() http.Handler {
			opt, err := sessionOption(*sessions)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			return server.NewStreamableHTTPServer(newServer(*withTasks), opt)
		},
	})
}
