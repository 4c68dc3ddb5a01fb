package main

import (
	"context"
	stdjson "encoding/json"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// addModernTools registers the diagnostic tools of server-stateless.
func addModernTools(s *server.Server) {
	// Without the sampling capability in the request, the library answers
	// -32021 with data.requiredCapabilities {"sampling":{}} (HTTP 400).
	s.AddRawTool(&mcp.Tool{Name: "test_missing_capability", Description: "Test tool requiring the sampling client capability", InputSchema: noArgs},
		func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return text("Success"), nil
		}, server.RequireClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}))

	// The triggers re-register a dynamic tool or prompt, which announces a
	// list change to every subscriptions/listen stream (and legacy session)
	// that asked for it. The lists themselves stay the same.
	dynamicTool := &mcp.Tool{Name: "test_dynamic_tool", Description: "A tool the change triggers re-register", InputSchema: noArgs}
	dynamicToolHandler := func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
		return text("dynamic tool"), nil
	}
	s.AddRawTool(dynamicTool, dynamicToolHandler)
	dynamicPrompt := &mcp.Prompt{Name: "test_dynamic_prompt", Description: "A prompt the change trigger re-registers"}
	dynamicPromptHandler := func(context.Context, *server.Request, map[string]string) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "dynamic prompt"}}}}, nil
	}
	s.AddPrompt(dynamicPrompt, dynamicPromptHandler)

	s.AddRawTool(&mcp.Tool{Name: "test_trigger_tool_change", Description: "Announces a tools list change to listening clients", InputSchema: noArgs},
		func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			s.AddRawTool(dynamicTool, dynamicToolHandler)
			return text("Mutation triggered"), nil
		})
	s.AddRawTool(&mcp.Tool{Name: "test_trigger_prompt_change", Description: "Announces a prompts list change to listening clients", InputSchema: noArgs},
		func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			s.AddPrompt(dynamicPrompt, dynamicPromptHandler)
			return text("Mutation triggered"), nil
		})
}
