package main

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// noArgs is the input schema of the fixture tools that take no arguments.
var noArgs = stdjson.RawMessage(`{"type":"object","properties":{}}`)

// step is the pause between the notifications of the logging and progress
// tools, as in the reference fixture.
const step = 50 * time.Millisecond

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// text returns a tool result holding one text item.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: s}}}
}

// addContentTools registers the tools of the tools-call-* scenarios that
// return fixed content.
func addContentTools(s *server.Server) {
	fixed := func(name, description string, content ...mcp.Content) {
		s.AddRawTool(&mcp.Tool{Name: name, Description: description, InputSchema: noArgs},
			func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: content}, nil
			})
	}
	fixed("test_simple_text", "Tests simple text content response",
		&mcp.TextContent{Text: "This is a simple text response for testing."})
	fixed("test_image_content", "Tests image content response",
		&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"})
	fixed("test_audio_content", "Tests audio content response",
		&mcp.AudioContent{Data: silentWAV, MIMEType: "audio/wav"})
	fixed("test_embedded_resource", "Tests embedded resource content response",
		&mcp.EmbeddedResource{Resource: &mcp.TextResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
		}})
	fixed("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)",
		&mcp.TextContent{Text: "Multiple content types test:"},
		&mcp.ImageContent{Data: redPixelPNG, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.TextResourceContents{
			URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
		}})

	s.AddRawTool(&mcp.Tool{Name: "test_error_handling", Description: "Tests error response handling", InputSchema: noArgs},
		func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			// A plain error becomes a tool result with isError set, which is
			// what tools-call-error expects (not a JSON-RPC error).
			//lint:ignore ST1005 the text becomes the tool result a person reads, not an error wrapped by callers
			return nil, errors.New("This tool intentionally returns an error for testing")
		})

	s.AddRawTool(&mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)", InputSchema: jsonSchema202012},
		func(_ context.Context, _ *server.Request, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return text("JSON Schema 2020-12 tool called with: " + string(args)), nil
		})
}

// addNotifyingTools registers the tools that send notifications during the
// call: log messages and progress.
func addNotifyingTools(s *server.Server) {
	s.AddRawTool(&mcp.Tool{Name: "test_tool_with_logging", Description: "Tests tool that emits log messages during execution", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := sleep(ctx, step); err != nil {
						return nil, err
					}
				}
				if err := r.Log(ctx, mcp.LevelInfo, "conformance-test-server", msg); err != nil {
					return nil, fmt.Errorf("sending log message %q: %w", msg, err)
				}
			}
			return text("Tool with logging executed successfully"), nil
		})

	s.AddRawTool(&mcp.Tool{Name: "test_tool_with_progress", Description: "Tests tool that reports progress notifications", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := sleep(ctx, step); err != nil {
						return nil, err
					}
				}
				if err := r.Progress(ctx, p, 100, fmt.Sprintf("Completed step %v of 100", p)); err != nil {
					return nil, fmt.Errorf("sending progress %v: %w", p, err)
				}
			}
			return text("Tool with progress executed successfully"), nil
		})

	// test_logging_tool (server-stateless): log messages only when the
	// modern request asks for them with _meta logLevel; the library drops
	// them otherwise.
	s.AddRawTool(&mcp.Tool{Name: "test_logging_tool", Description: "Diagnostic tool: logs one message, which a modern request receives only when its _meta sets a logLevel", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			if err := r.Log(ctx, mcp.LevelInfo, "conformance-test-server", "Diagnostic trace logging activated"); err != nil {
				return nil, fmt.Errorf("sending the log message: %w", err)
			}
			return text("Logging evaluated"), nil
		})

	// test_streaming_elicitation (server-stateless): its response stream may
	// carry notifications but never a server-to-client request.
	s.AddRawTool(&mcp.Tool{Name: "test_streaming_elicitation", Description: "Diagnostic tool: reports progress on its response stream, then completes", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			if err := r.Progress(ctx, 50, 100, "halfway"); err != nil {
				return nil, fmt.Errorf("sending progress: %w", err)
			}
			return text("Streaming complete"), nil
		})
}

// promptArgs are the arguments of test_sampling.
type promptArgs struct {
	Prompt string `json:"prompt" jsonschema:"The prompt to send to the LLM"`
}

// messageArgs are the arguments of test_elicitation.
type messageArgs struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

// addAskingTools registers the legacy tools that ask the client something
// during the call (sampling, elicitation).
func addAskingTools(s *server.Server) {
	server.AddTool(s, &mcp.Tool{Name: "test_sampling", Description: "Tests server-initiated sampling (LLM completion request)"},
		func(ctx context.Context, r *server.Request, in promptArgs) (*mcp.CallToolResult, error) {
			res, err := r.Sample(ctx, &mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: in.Prompt}}}},
				MaxTokens: 100,
			})
			if err != nil {
				return nil, err
			}
			reply := "No response"
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					reply = t.Text
					break
				}
			}
			return text("LLM response: " + reply), nil
		})

	server.AddTool(s, &mcp.Tool{Name: "test_elicitation", Description: "Tests server-initiated elicitation (user input request)"},
		func(ctx context.Context, r *server.Request, in messageArgs) (*mcp.CallToolResult, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{
				Message: in.Message,
				RequestedSchema: &mcp.ElicitSchema{Type: "object", Required: []string{"response"}, Properties: mcp.ElicitProperties{
					{Name: "response", Schema: mcp.PrimitiveSchema{Type: "string", Description: "User's response"}},
				}},
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("User response: action=%s, content=%s", res.Action, encodeObject(res.Content))), nil
		})

	s.AddRawTool(&mcp.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Tests elicitation with default values per SEP-1034", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{
				Message: "Please review and update the form fields with defaults",
				RequestedSchema: &mcp.ElicitSchema{Type: "object", Properties: mcp.ElicitProperties{
					{Name: "name", Schema: mcp.PrimitiveSchema{Type: "string", Description: "User name", Default: raw(`"John Doe"`)}},
					{Name: "age", Schema: mcp.PrimitiveSchema{Type: "integer", Description: "User age", Default: raw(`30`)}},
					{Name: "score", Schema: mcp.PrimitiveSchema{Type: "number", Description: "User score", Default: raw(`95.5`)}},
					{Name: "status", Schema: mcp.PrimitiveSchema{Type: "string", Description: "User status", Enum: []string{"active", "inactive", "pending"}, Default: raw(`"active"`)}},
					{Name: "verified", Schema: mcp.PrimitiveSchema{Type: "boolean", Description: "Verification status", Default: raw(`true`)}},
				}},
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, encodeObject(res.Content))), nil
		})

	s.AddRawTool(&mcp.Tool{Name: "test_elicitation_sep1330_enums", Description: "Tests elicitation with enum schema improvements per SEP-1330", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			one, three := int64(1), int64(3)
			res, err := r.Elicit(ctx, &mcp.ElicitParams{
				Message: "Please select options from the enum fields",
				RequestedSchema: &mcp.ElicitSchema{Type: "object", Properties: mcp.ElicitProperties{
					{Name: "untitledSingle", Schema: mcp.PrimitiveSchema{Type: "string", Description: "Select one option",
						Enum: []string{"option1", "option2", "option3"}}},
					{Name: "titledSingle", Schema: mcp.PrimitiveSchema{Type: "string", Description: "Select one option with titles",
						OneOf: []mcp.EnumOption{{Const: "value1", Title: "First Option"}, {Const: "value2", Title: "Second Option"}, {Const: "value3", Title: "Third Option"}}}},
					{Name: "legacyEnum", Schema: mcp.PrimitiveSchema{Type: "string", Description: "Select one option (legacy)",
						Enum: []string{"opt1", "opt2", "opt3"}, EnumNames: []string{"Option One", "Option Two", "Option Three"}}},
					{Name: "untitledMulti", Schema: mcp.PrimitiveSchema{Type: "array", Description: "Select multiple options", MinItems: &one, MaxItems: &three,
						Items: &mcp.EnumItems{Type: "string", Enum: []string{"option1", "option2", "option3"}}}},
					{Name: "titledMulti", Schema: mcp.PrimitiveSchema{Type: "array", Description: "Select multiple options with titles", MinItems: &one, MaxItems: &three,
						Items: &mcp.EnumItems{AnyOf: []mcp.EnumOption{{Const: "value1", Title: "First Choice"}, {Const: "value2", Title: "Second Choice"}, {Const: "value3", Title: "Third Choice"}}}}},
				}},
			})
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, encodeObject(res.Content))), nil
		})
}

// raw is a JSON literal.
func raw(s string) stdjson.RawMessage { return stdjson.RawMessage(s) }

// encodeObject renders elicited content for a tool result.
func encodeObject(o mcp.JSONObject) string {
	if o == nil {
		return "{}"
	}
	b, err := stdjson.Marshal(o)
	if err != nil {
		return fmt.Sprintf("(unencodable content: %v)", err)
	}
	return string(b)
}
