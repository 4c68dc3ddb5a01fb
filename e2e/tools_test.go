package e2e

import (
	"errors"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

func TestToolsListAcrossPages(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		var names []string
		var add *mcp.Tool
		for tool, err := range s.Tools(ctxFor(t)) {
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, tool.Name)
			if tool.Name == "add" {
				add = tool
			}
		}
		if len(names) < 10 || names[0] != "add" || names[1] != "echo" {
			t.Fatalf("tools %v: want the fixture's tools in registration order", names)
		}
		if pages := len(tp.sent(mcp.MethodToolsList)); pages != (len(names)+fixturePageSize-1)/fixturePageSize {
			t.Errorf("%d tools took %d tools/list requests, want one per page of %d", len(names), pages, fixturePageSize)
		}
		if !strings.Contains(string(add.InputSchema), `"a"`) {
			t.Errorf("add's input schema %s does not describe its arguments", add.InputSchema)
		}
		if hasOutput := add.OutputSchema != nil; hasOutput != mcp.SupportsStructuredContent(e.version) {
			t.Errorf("add has an output schema: %v, want %v at %s", hasOutput, !hasOutput, e.version)
		}
		if s.ServerCapabilities().Tools == nil || !s.ServerCapabilities().Tools.ListChanged {
			t.Errorf("server capabilities %+v lack tools.listChanged", s.ServerCapabilities())
		}
		if s.ServerInfo().Name != "weft-e2e" || s.Instructions() == "" {
			t.Errorf("server info %+v, instructions %q", s.ServerInfo(), s.Instructions())
		}
	})
}

func TestToolsCall(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, _ := e.connect(t, nil)
		t.Run("typed with structured output", func(t *testing.T) {
			res := callTool(t, s, "add", `{"a":2,"b":40}`)
			if res.IsError || text(t, res) != `{"sum":42}` {
				t.Fatalf("add = %+v", res)
			}
			want := ""
			if mcp.SupportsStructuredContent(e.version) {
				want = `{"sum":42}`
			}
			if string(res.StructuredContent) != want {
				t.Errorf("structuredContent = %s, want %q at %s", res.StructuredContent, want, e.version)
			}
		})
		t.Run("raw", func(t *testing.T) {
			if got := text(t, callTool(t, s, "echo", `{"x":[1,2]}`)); got != `{"x":[1,2]}` {
				t.Errorf("echo = %s", got)
			}
		})
		t.Run("tool error is a result", func(t *testing.T) {
			res := callTool(t, s, "fail", `{}`)
			if !res.IsError || !strings.Contains(text(t, res), "on purpose") {
				t.Errorf("fail = %+v, want isError with the error's text", res)
			}
		})
		t.Run("schema violation is a tool error from 2025-11-25 on, -32602 before", func(t *testing.T) {
			for _, args := range []string{`{"n":0}`, `{"n":"one"}`, `{}`, `{"n":1,"extra":true}`} {
				res, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "strict", Arguments: []byte(args)})
				if !mcp.InvalidArgumentsAreToolErrors(e.version) {
					var je *jsonrpc.Error
					if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
						t.Errorf("strict %s: %v, want -32602", args, err)
					}
					continue
				}
				if err != nil || !res.IsError || !strings.Contains(text(t, res), `invalid arguments for tool "strict"`) {
					t.Errorf("strict %s: %+v, %v, want a tool error naming the tool (SEP-1303)", args, res, err)
				}
			}
			_, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "strict", Arguments: []byte(`[1]`)})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("strict with an array for arguments: %v, want -32602", err)
			}
			if got := text(t, callTool(t, s, "strict", `{"n":3}`)); got != `accepted {"n":3}` {
				t.Errorf("strict with valid arguments = %s", got)
			}
		})
		t.Run("unknown tool is -32602", func(t *testing.T) {
			_, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "nope"})
			var e *jsonrpc.Error
			if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("tools/call nope: %v, want -32602", err)
			}
		})
	})
}
