// Command gosdk is the benchmark's one-tool echo server built on the official
// Go SDK, github.com/modelcontextprotocol/go-sdk, used as its documentation
// shows: a typed tool added with mcp.AddTool (input schema inferred from the
// argument struct and checked on every call).
//
// It serves stdio by default and Streamable HTTP at /mcp with -http ADDR,
// answering with JSON rather than SSE; -stateless selects the SDK's stateless
// HTTP mode (no Mcp-Session-Id, a temporary session per request).
package main

import (
	"context"
	"flag"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weftmcp/weft/bench/internal/servermain"
)

// echoArgs is the echo tool's input.
type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

// echo returns the text it is given as the call's only content.
func echo(_ context.Context, _ *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: args.Text}}}, nil, nil
}

// newServer returns the SDK server holding the echo tool.
func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-echo", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns the text it is given."}, echo)
	return s
}

func main() {
	stateless := flag.Bool("stateless", false, "serve HTTP in the SDK's stateless mode (no sessions)")
	servermain.Main(servermain.Server{
		Name: "gosdk",
		Stdio: func(ctx context.Context) error {
			return newServer().Run(ctx, &mcp.StdioTransport{})
		},
		HTTP: func() http.Handler {
			s := newServer()
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
				&mcp.StreamableHTTPOptions{Stateless: *stateless, JSONResponse: true})
		},
	})
}
