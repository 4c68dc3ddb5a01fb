package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/mcp"
)

// ToolError is the error of a typed tool call (CallTool) whose tool
// failed: the server answered with a result that has isError set, which
// Result holds whole, content included. Find it with errors.As.
type ToolError struct {
	// Tool is the name of the tool that failed.
	Tool string
	// Result is the tool's result, as the server sent it.
	Result *mcp.CallToolResult
}

// Error names the tool and gives the text of its content.
func (e *ToolError) Error() string {
	var text []string
	for _, c := range e.Result.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	if len(text) == 0 {
		return fmt.Sprintf("client: tool %q failed (its result has no text content)", e.Tool)
	}
	return fmt.Sprintf("client: tool %q failed: %s", e.Tool, strings.Join(text, "\n"))
}

// CallTool calls the tool name with in as its arguments and decodes its
// result into an Out: it is Session.CallTool for a tool whose input and
// output have Go types, as server.AddTool makes them.
//
// in is encoded as JSON and must encode as an object (nil sends no
// arguments). The result's structuredContent is decoded into Out; when the
// result has none (a server before 2025-06-18, or a tool without an output
// schema), its first text content is: as itself when Out is a string,
// else as JSON. A tool that failed (isError) is a *ToolError carrying its
// content; a protocol error is returned as the *jsonrpc.Error the server
// sent. opts apply as for Session.CallTool, WithTask included.
//
//	forecast, err := client.CallTool[Forecast](ctx, session, "forecast", ForecastIn{City: "Oslo"})
func CallTool[Out, In any](ctx context.Context, s *Session, name string, in In, opts ...CallOption) (Out, error) {
	var out Out
	args, err := json.Marshal(in)
	if err != nil {
		return out, fmt.Errorf("client: tool %q: encoding the arguments (%T): %w", name, in, err)
	}
	switch jsontext.Value(args).Kind() {
	case 'n':
		args = nil
	case '{':
	default:
		return out, fmt.Errorf("client: tool %q: the arguments must encode as a JSON object; %T encodes as %s", name, in, args)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args}, opts...)
	if err != nil {
		return out, err
	}
	if res.IsError {
		return out, &ToolError{Tool: name, Result: res}
	}
	if len(res.StructuredContent) > 0 {
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			return out, fmt.Errorf("client: tool %q: decoding structuredContent into %T: %w", name, out, err)
		}
		return out, nil
	}
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		if p, ok := any(&out).(*string); ok {
			*p = t.Text
			return out, nil
		}
		if err := json.Unmarshal([]byte(t.Text), &out); err != nil {
			return out, fmt.Errorf("client: tool %q: the result has no structuredContent, and its text is not JSON for %T: %w", name, out, err)
		}
		return out, nil
	}
	return out, fmt.Errorf("client: tool %q: the result has neither structuredContent nor text content to decode into %T", name, out)
}
