package main

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"strings"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// The multi round-trip tools (input-required-result-* scenarios). Each is
// straight-line code: it asks with server.AskAll and uses the answers. In a
// modern request the library turns unanswered questions into an
// InputRequiredResult with an integrity-protected requestState and replays
// the handler when the client retries; in a legacy session the same
// questions go to the client as requests.

// textField returns the string a form answer holds under field, or "" when
// it has none.
func textField(r *mcp.ElicitResult, field string) string {
	var s string
	if r == nil || stdjson.Unmarshal(r.Content[field], &s) != nil {
		return ""
	}
	return s
}

// sampledText returns the text of a sampled message.
func sampledText(r *mcp.CreateMessageResult) string {
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// form returns an object schema with one property of the given type.
func form(field, typ string) *mcp.ElicitSchema {
	return &mcp.ElicitSchema{Type: "object", Required: []string{field}, Properties: mcp.ElicitProperties{
		{Name: field, Schema: mcp.PrimitiveSchema{Type: typ}},
	}}
}

// userText is one user text message for sampling.
func userText(s string) []mcp.SamplingMessage {
	return []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: s}}}}
}

// roundState is the handler state test_input_required_result_request_state
// carries from one round to the next.
type roundState struct {
	Kind string `json:"kind"`
}

func addInputRequiredTools(s *server.Server) {
	tool := func(name, description string, h server.RawToolHandler) {
		s.AddRawTool(&mcp.Tool{Name: name, Description: description, InputSchema: noArgs}, h)
	}

	tool("test_input_required_result_elicitation", "MRTR: asks for the user's name (key user_name), then greets them",
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			name := server.AskElicit("user_name", &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: form("name", "string")})
			if err := r.AskAll(ctx, name); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Hello, %s!", textField(name.Result, "name"))), nil
		})

	tool("test_input_required_result_sampling", "MRTR: asks the client's model a question (key sample_request)",
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			q := server.AskSample("sample_request", &mcp.CreateMessageParams{Messages: userText("What is the capital of France?"), MaxTokens: 100})
			if err := r.AskAll(ctx, q); err != nil {
				return nil, err
			}
			return text("Sampling result: " + sampledText(q.Result)), nil
		})

	tool("test_input_required_result_list_roots", "MRTR: asks for the client's roots (key roots_request)",
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			q := server.AskRoots("roots_request")
			if err := r.AskAll(ctx, q); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Found %d root(s)", len(q.Result.Roots))), nil
		})

	tool("test_input_required_result_request_state", "MRTR: asks for confirmation (key confirm) and carries its own state across the round trip",
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			// Modern rounds carry this tool's own state in requestState; a
			// legacy session asks within one call and has no rounds.
			var prev roundState
			if r.IsModern() {
				if st := r.RoundState(); st != nil {
					if err := stdjson.Unmarshal(st, &prev); err != nil {
						return nil, fmt.Errorf("the previous round's state is unreadable: %w", err)
					}
				}
				if err := r.SetRoundState(roundState{Kind: "request-state"}); err != nil {
					return nil, err
				}
			}
			confirm := server.AskElicit("confirm", &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: form("ok", "boolean")})
			if err := r.AskAll(ctx, confirm); err != nil {
				return nil, err
			}
			if r.IsModern() && prev.Kind != "request-state" {
				return nil, fmt.Errorf("the retry did not bring back this tool's state (got %+v)", prev)
			}
			return text("state-ok: requestState validated"), nil
		})

	tool("test_input_required_result_multiple_inputs", "MRTR: asks for a name, a sampled greeting and the roots at once",
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			name := server.AskElicit("user_name", &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: form("name", "string")})
			greeting := server.AskSample("greeting", &mcp.CreateMessageParams{Messages: userText("Generate a greeting"), MaxTokens: 50})
			roots := server.AskRoots("client_roots")
			if err := r.AskAll(ctx, name, greeting, roots); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Name: %s; Greeting: %s; Roots: %d",
				textField(name.Result, "name"), sampledText(greeting.Result), len(roots.Result.Roots))), nil
		})

	tool("test_input_required_result_multi_round", "MRTR: asks two questions in two rounds (keys step1, step2)",
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			step1 := server.AskElicit("step1", &mcp.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: form("name", "string")})
			if err := r.AskAll(ctx, step1); err != nil {
				return nil, err
			}
			step2 := server.AskElicit("step2", &mcp.ElicitParams{Message: "Step 2: What is your favorite color?", RequestedSchema: form("color", "string")})
			if err := r.AskAll(ctx, step2); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Multi-round complete for %s who likes %s",
				textField(step1.Result, "name"), textField(step2.Result, "color"))), nil
		})

	tool("test_input_required_result_tampered_state", "MRTR: asks for confirmation; a tampered requestState is refused",
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			confirm := server.AskElicit("confirm", &mcp.ElicitParams{Message: "Please confirm", RequestedSchema: form("ok", "boolean")})
			if err := r.AskAll(ctx, confirm); err != nil {
				return nil, err
			}
			return text("integrity-ok: state verified"), nil
		})

	tool("test_input_required_result_capabilities", "MRTR: asks only for what the request's client capabilities declare",
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			caps := r.ClientCapabilities()
			var qs []server.Question
			var keys []string
			if caps.Elicitation != nil {
				qs = append(qs, server.AskElicit("elicit_input", &mcp.ElicitParams{Message: "Elicitation input", RequestedSchema: form("value", "string")}))
				keys = append(keys, "elicit_input")
			}
			if caps.Sampling != nil {
				qs = append(qs, server.AskSample("sample_input", &mcp.CreateMessageParams{Messages: userText("Sample request"), MaxTokens: 50}))
				keys = append(keys, "sample_input")
			}
			if len(qs) == 0 {
				return text("No supported capabilities declared"), nil
			}
			if err := r.AskAll(ctx, qs...); err != nil {
				return nil, err
			}
			return text("capabilities-ok: received " + strings.Join(keys, ",")), nil
		})
}

// addInputRequiredPrompt registers the prompt of
// input-required-result-non-tool-request.
func addInputRequiredPrompt(s *server.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "MRTR: prompt that asks for context (key user_context) before rendering"},
		func(ctx context.Context, r *server.Request, _ map[string]string) (*mcp.GetPromptResult, error) {
			q := server.AskElicit("user_context", &mcp.ElicitParams{Message: "What context should the prompt use?", RequestedSchema: form("context", "string")})
			if err := r.AskAll(ctx, q); err != nil {
				return nil, err
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Prompt with context: " + textField(q.Result, "context")}}}}, nil
		})
}
