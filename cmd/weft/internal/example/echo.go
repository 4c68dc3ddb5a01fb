package example

import (
	"context"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// EchoIn are the arguments of echo.
type EchoIn struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

// addEcho registers echo, which returns its text.
func addEcho(s *server.Server) {
	server.AddTool(s, &mcp.Tool{Name: "echo", Title: "Echo", Description: "Returns the text it is given."},
		func(_ context.Context, _ *server.Request, in EchoIn) (string, error) {
			return in.Text, nil
		})
}
