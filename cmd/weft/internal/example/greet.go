package example

import (
	"context"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// addGreet registers the greet prompt, which asks the model to greet someone.
func addGreet(s *server.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name:        "greet",
		Title:       "Greet",
		Description: "Asks the model to greet someone by name",
		Arguments:   []mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true}},
	}, func(_ context.Context, _ *server.Request, args map[string]string) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{
			Description: "A greeting for " + args["name"],
			Messages:    []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Please greet " + args["name"] + " warmly."}}},
		}, nil
	})
}
