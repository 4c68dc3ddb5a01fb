package main

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

// listTools returns every tool the server lists, across pages.
func listTools(ctx context.Context, s *client.Session) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range s.Tools(ctx) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// findTool returns the named tool, or an error naming what was listed.
func findTool(tools []*mcp.Tool, name string) (*mcp.Tool, error) {
	var names []string
	for _, t := range tools {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return nil, fmt.Errorf("the server does not list tool %q (it lists %v)", name, names)
}

// callTool calls a tool and fails on a JSON-RPC error or a tool error.
func callTool(ctx context.Context, s *client.Session, name string, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", name, err)
	}
	if res.IsError {
		return nil, fmt.Errorf("tools/call %s: the tool reported an error: %s", name, resultText(res))
	}
	return res, nil
}

// resultText returns the text items of a tool result, for messages.
func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// withSession connects with opts, runs f and closes the session.
func withSession(ctx context.Context, e *env, opts client.Options, f func(*client.Session) error) error {
	s, err := e.connect(ctx, opts)
	if err != nil {
		return err
	}
	ferr := f(s)
	if cerr := s.Close(); cerr != nil && ferr == nil {
		return fmt.Errorf("closing the session: %w", cerr)
	}
	return ferr
}

// playListTools connects and lists the tools (initialize,
// json-schema-ref-no-deref).
func playListTools(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		_, err := listTools(ctx, s)
		return err
	})
}

// playToolsCall lists the tools and calls add_numbers with two numbers.
func playToolsCall(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		tools, err := listTools(ctx, s)
		if err != nil {
			return err
		}
		if _, err := findTool(tools, "add_numbers"); err != nil {
			return err
		}
		_, err = callTool(ctx, s, "add_numbers", stdjson.RawMessage(`{"a":2,"b":3}`))
		return err
	})
}

// playElicitationDefaults accepts the elicitation with empty content: the
// client library must fill in the defaults of the requested schema.
func playElicitationDefaults(ctx context.Context, e *env) error {
	opts := client.Options{
		ElicitForm: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{}}, nil
		},
	}
	return withSession(ctx, e, opts, func(s *client.Session) error {
		tools, err := listTools(ctx, s)
		if err != nil {
			return err
		}
		if _, err := findTool(tools, "test_client_elicitation_defaults"); err != nil {
			return err
		}
		_, err = callTool(ctx, s, "test_client_elicitation_defaults", stdjson.RawMessage(`{}`))
		return err
	})
}

// playSSERetry calls test_reconnection, whose SSE stream the mock closes
// mid-call: the transport must resume it with GET and Last-Event-ID.
func playSSERetry(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		tools, err := listTools(ctx, s)
		if err != nil {
			return err
		}
		if _, err := findTool(tools, "test_reconnection"); err != nil {
			return err
		}
		_, err = callTool(ctx, s, "test_reconnection", stdjson.RawMessage(`{}`))
		return err
	})
}

// playRequestMetadata asks server/discover and lists the tools, each
// request carrying its own _meta.
func playRequestMetadata(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		if !s.IsModern() {
			return fmt.Errorf("the session speaks %s, but request-metadata needs the modern era", s.ProtocolVersion())
		}
		if _, err := s.Discover(ctx); err != nil {
			return fmt.Errorf("server/discover: %w", err)
		}
		_, err := listTools(ctx, s)
		return err
	})
}

// playEverything exercises every request that carries Mcp-Method and
// Mcp-Name: it lists and calls the tools, lists and reads the resources,
// and lists and gets the prompts.
func playEverything(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		tools, err := listTools(ctx, s)
		if err != nil {
			return err
		}
		for _, t := range tools {
			if _, err := callTool(ctx, s, t.Name, stdjson.RawMessage(`{}`)); err != nil {
				return err
			}
		}
		var uris []string
		for r, err := range s.Resources(ctx) {
			if err != nil {
				return fmt.Errorf("resources/list: %w", err)
			}
			uris = append(uris, r.URI)
		}
		for _, uri := range uris {
			if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
				return fmt.Errorf("resources/read %s: %w", uri, err)
			}
		}
		var prompts []*mcp.Prompt
		for p, err := range s.Prompts(ctx) {
			if err != nil {
				return fmt.Errorf("prompts/list: %w", err)
			}
			prompts = append(prompts, p)
		}
		for _, p := range prompts {
			args := map[string]string{}
			for _, a := range p.Arguments {
				if a.Required {
					args[a.Name] = "conformance"
				}
			}
			if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args}); err != nil {
				return fmt.Errorf("prompts/get %s: %w", p.Name, err)
			}
		}
		return nil
	})
}

// toolCallsContext is the MCP_CONFORMANCE_CONTEXT of http-custom-headers.
type toolCallsContext struct {
	ToolCalls []struct {
		Name      string             `json:"name"`
		Arguments stdjson.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

// playCustomHeaders lists the tools (so the client knows their x-mcp-header
// parameters) and makes the calls the scenario's context lists.
func playCustomHeaders(ctx context.Context, e *env) error {
	var tc toolCallsContext
	if err := stdjson.Unmarshal(e.context, &tc); err != nil || len(tc.ToolCalls) == 0 {
		return fmt.Errorf("MCP_CONFORMANCE_CONTEXT %q has no toolCalls (decode error: %v)", e.context, err)
	}
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		if _, err := listTools(ctx, s); err != nil {
			return err
		}
		for _, c := range tc.ToolCalls {
			if _, err := callTool(ctx, s, c.Name, c.Arguments); err != nil {
				return err
			}
		}
		return nil
	})
}

// playInvalidToolHeaders lists the tools (the client drops those with
// invalid x-mcp-header annotations) and calls each one left.
func playInvalidToolHeaders(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		tools, err := listTools(ctx, s)
		if err != nil {
			return err
		}
		if len(tools) == 0 {
			return errors.New("tools/list returned no tool at all; valid_tool must survive")
		}
		for _, t := range tools {
			if _, err := callTool(ctx, s, t.Name, stdjson.RawMessage(`{"region":"us-west1"}`)); err != nil {
				return err
			}
		}
		return nil
	})
}

// playSchemaPreservation echoes the inputSchema of json_schema_2020_12_tool,
// byte for byte as the client received it, to json_schema_echo.
func playSchemaPreservation(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		tools, err := listTools(ctx, s)
		if err != nil {
			return err
		}
		focal, err := findTool(tools, "json_schema_2020_12_tool")
		if err != nil {
			return err
		}
		args := make([]byte, 0, len(focal.InputSchema)+12)
		args = append(args, `{"schema":`...)
		args = append(args, focal.InputSchema...)
		args = append(args, '}')
		_, err = callTool(ctx, s, "json_schema_echo", args)
		return err
	})
}

// playRequestState runs the multi round-trip tools: the library answers
// each input_required result (echoing requestState, with a fresh id per
// retry) while an unrelated call runs alongside.
func playRequestState(ctx context.Context, e *env) error {
	opts := client.Options{
		ElicitForm: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"confirmed": stdjson.RawMessage("true")}}, nil
		},
	}
	return withSession(ctx, e, opts, func(s *client.Session) error {
		tools, err := listTools(ctx, s)
		if err != nil {
			return err
		}
		for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
			if _, err := findTool(tools, name); err != nil {
				return err
			}
		}
		unrelated := make(chan error, 1)
		go func() {
			_, err := callTool(ctx, s, "test_mrtr_unrelated", stdjson.RawMessage(`{}`))
			unrelated <- err
		}()
		_, echoErr := callTool(ctx, s, "test_mrtr_echo_state", stdjson.RawMessage(`{}`))
		if err := errors.Join(echoErr, <-unrelated); err != nil {
			return err
		}
		if _, err := callTool(ctx, s, "test_mrtr_no_state", stdjson.RawMessage(`{}`)); err != nil {
			return err
		}
		_, err = callTool(ctx, s, "test_mrtr_no_result_type", stdjson.RawMessage(`{}`))
		return err
	})
}
