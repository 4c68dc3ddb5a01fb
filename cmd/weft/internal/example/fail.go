package example

import (
	"context"
	"errors"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// FailIn are the arguments of fail.
type FailIn struct {
	Message string `json:"message" jsonschema:"the error message to fail with"`
}

// addFail registers fail, which always fails with a tool error carrying
// its message: what a tool's own failure looks like to a client.
func addFail(s *server.Server) {
	server.AddTool(s, &mcp.Tool{Name: "fail", Title: "Fail", Description: "Always fails, with the given message as a tool error."},
		func(_ context.Context, _ *server.Request, in FailIn) (*mcp.CallToolResult, error) {
			if in.Message == "" {
				return nil, errors.New("failed as asked (no message given)")
			}
			return nil, errors.New(in.Message)
		})
}
