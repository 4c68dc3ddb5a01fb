package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// jsonSchema202012 is the conformance suite's json_schema_2020_12_tool
// input schema, which tools/list must emit exactly.
const jsonSchema202012 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},` +
	`"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}`

type bookIn struct {
	Title  string   `json:"title"`
	Pages  int      `json:"pages,omitzero"`
	Author author   `json:"author"`
	Tags   []string `json:"tags,omitempty"`
}

type author struct {
	Name string `json:"name"`
}

func toolServer(t *testing.T) *Server {
	s := newTestServer(t, nil)
	AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes."}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Text}, nil
	})
	AddTool(s, &mcp.Tool{Name: "book", Description: "Takes a book."}, func(_ context.Context, _ *Request, in bookIn) (string, error) {
		return in.Author.Name + ": " + in.Title, nil
	})
	AddTool(s, &mcp.Tool{Name: "fail", Description: "Fails."}, func(context.Context, *Request, struct{}) (any, error) {
		return nil, errors.New("the tool broke")
	})
	AddTool(s, &mcp.Tool{Name: "protocol_error", Description: "Fails as a protocol error."}, func(context.Context, *Request, struct{}) (any, error) {
		return nil, fmt.Errorf("wrapped: %w", jsonrpc.NewError(-32099, "custom"))
	})
	AddTool(s, &mcp.Tool{Name: "panic", Description: "Panics."}, func(context.Context, *Request, struct{}) (any, error) {
		panic("boom")
	})
	AddTool(s, &mcp.Tool{Name: "raw_result", Description: "Returns its own result."}, func(context.Context, *Request, map[string]any) (*mcp.CallToolResult, error) {
		return sharedResult, nil
	})
	AddTool(s, &mcp.Tool{Name: "schema_2020_12", Description: "Keeps its schema.", InputSchema: stdjson.RawMessage(jsonSchema202012)},
		func(_ context.Context, _ *Request, in map[string]any) (any, error) { return in["name"], nil })
	s.AddRawTool(&mcp.Tool{Name: "raw", Description: "Raw."}, func(_ context.Context, _ *Request, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: string(args)}}}, nil
	})
	AddTool(s, &mcp.Tool{Name: "list", Description: "Returns a list."}, func(context.Context, *Request, struct{}) ([]int, error) {
		return []int{1, 2}, nil
	})
	AddTool(s, &mcp.Tool{Name: "needs_sampling", Description: "Needs sampling."}, func(context.Context, *Request, struct{}) (string, error) {
		return "sampled", nil
	}, RequireClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}))
	return s
}

// sharedResult is returned by every call of raw_result: the server must not
// modify it.
var sharedResult = &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "shared"}}}

func TestTools_CallEveryVersion(t *testing.T) {
	s := toolServer(t)
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			c := open(t, s, v, `{}`, nil)
			res := c.mustCall("tools/call", `{"name":"echo","arguments":{"text":"hi"}}`)
			if got := member(t, res, "content"); got != `[{"type":"text","text":"{\"echo\":\"hi\"}"}]` {
				t.Errorf("content %s", got)
			}
			wantStructured := mcp.SupportsStructuredContent(v)
			if got := member(t, res, "structuredContent"); (got == `{"echo":"hi"}`) != wantStructured {
				t.Errorf("structuredContent %q in %s", got, v)
			}
			list := c.mustCall("tools/call", `{"name":"list"}`)
			if got := member(t, list, "structuredContent"); (got == "[1,2]") != mcp.IsModern(v) {
				t.Errorf("a non-object structuredContent is %q in %s; only the modern era allows it", got, v)
			}
		})
	}
}

func TestTools_ListShowsSchemasPerVersion(t *testing.T) {
	s := toolServer(t)
	for _, v := range allVersions {
		c := open(t, s, v, `{}`, nil)
		res := c.mustCall("tools/list", `{}`)
		var lr mcp.ListToolsResult
		decode(t, res, &lr)
		names := make([]string, len(lr.Tools))
		for i, tool := range lr.Tools {
			names[i] = tool.Name
		}
		if got := strings.Join(names, ","); got != "echo,book,fail,protocol_error,panic,raw_result,schema_2020_12,raw,list,needs_sampling" {
			t.Fatalf("%s: tools/list order %s, want registration order", v, got)
		}
		book := lr.Tools[1]
		if string(book.InputSchema) != `{"type":"object","properties":{"title":{"type":"string"},"pages":{"type":"integer"},`+
			`"author":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false},`+
			`"tags":{"type":["null","array"],"items":{"type":"string"}}},"required":["title","author"],"additionalProperties":false}` {
			t.Errorf("derived input schema %s", book.InputSchema)
		}
		if string(lr.Tools[6].InputSchema) != jsonSchema202012 {
			t.Errorf("%s: a given schema was not emitted byte for byte:\n%s", v, lr.Tools[6].InputSchema)
		}
		if got := string(lr.Tools[0].OutputSchema) != ""; got != mcp.SupportsStructuredContent(v) {
			t.Errorf("%s: echo has an output schema = %v", v, got)
		}
		if got := string(lr.Tools[8].OutputSchema) != ""; got != mcp.IsModern(v) {
			t.Errorf("%s: a non-object output schema is listed = %v", v, got)
		}
		if lr.Tools[5].OutputSchema != nil || lr.Tools[2].OutputSchema != nil {
			t.Errorf("%s: tools returning *mcp.CallToolResult or any have output schemas", v)
		}
	}
}

func TestTools_ArgumentsAreValidated(t *testing.T) {
	s := toolServer(t)
	cases := []struct{ args, want string }{
		{`{"title":"t"}`, `missing properties: ["author"]`},
		{`{"title":"t","author":{"name":7}}`, `author.name: type: 7 has type "integer", want "string"`},
		{`{"title":"t","author":{"name":"a"},"tags":[1]}`, `tags[0]: type: 1 has type "integer"`},
		{`{"title":"t","author":{"name":"a"},"extra":1}`, `additional properties ["extra"]`},
		{`{"title":"t","author":{"name":"a"},"pages":"x"}`, `pages: type: x has type "string", want "integer"`},
	}
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			c := open(t, s, v, `{}`, nil)
			// rejected asserts that the call is refused naming the tool and
			// want: as a tool error from 2025-11-25 on, as -32602 before.
			rejected := func(params, want string) {
				t.Helper()
				raw, err := c.call("tools/call", params)
				if !mcp.InvalidArgumentsAreToolErrors(v) {
					e := wantRPCError(t, "tools/call", raw, err)
					if e.Code != jsonrpc.CodeInvalidParams || !containsAll(e.Message, "invalid arguments", want) {
						t.Errorf("%s: %v, want -32602 mentioning %q", params, e, want)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s: %v, want a tool error result (SEP-1303)", params, err)
				}
				if member(t, raw, "isError") != "true" || !containsAll(text1(t, raw), "invalid arguments", want) {
					t.Errorf("%s: %s, want isError with a text mentioning %q", params, raw, want)
				}
				if mcp.IsModern(v) && member(t, raw, "resultType") != `"complete"` {
					t.Errorf("%s: %s, want resultType complete", params, raw)
				}
			}
			for _, tc := range cases {
				rejected(`{"name":"book","arguments":`+tc.args+`}`, tc.want)
			}
			rejected(`{"name":"book","arguments":`+cases[0].args+`}`, `"book"`)
			res := c.mustCall("tools/call", `{"name":"book","arguments":{"title":"Go","author":{"name":"Rob"},"pages":3}}`)
			if got := member(t, res, "isError"); got != "" {
				t.Errorf("valid arguments gave isError %s", got)
			}
			rejected(`{"name":"schema_2020_12","arguments":{"name":"x","contactMethod":"phone"}}`, "")
			if res := c.mustCall("tools/call", `{"name":"schema_2020_12","arguments":{"name":"x","contactMethod":"phone","phone":"1"}}`); member(t, res, "isError") != "" {
				t.Errorf("valid 2020-12 arguments rejected: %s", res)
			}
			rejected(`{"name":"echo"}`, `["text"]`) // absent arguments are checked as {}
			// Arguments outside the CallToolRequest schema are a protocol
			// error in every version.
			for _, args := range []string{`[1]`, `"x"`, `null`} {
				if e := c.callErr("tools/call", `{"name":"echo","arguments":`+args+`}`); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "must be a JSON object") {
					t.Errorf("arguments %s: %v, want -32602 saying they must be an object", args, e)
				}
			}
			c.mustCall("tools/call", `{"name":"echo","arguments":{"text":"still alive"}}`)
		})
	}
}

func TestTools_TypedArgumentsThatDoNotDecodeAreRejectedLikeSchemaViolations(t *testing.T) {
	s := newTestServer(t, nil)
	// The given schema lets "n" be anything; the handler's In wants an int.
	AddTool(s, &mcp.Tool{Name: "wait", InputSchema: stdjson.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, _ *Request, in struct {
			N int `json:"n"`
		}) (int, error) {
			return in.N, nil
		})
	for _, v := range []string{mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
		c := open(t, s, v, `{}`, nil)
		raw, err := c.call("tools/call", `{"name":"wait","arguments":{"n":0.5}}`)
		if !mcp.InvalidArgumentsAreToolErrors(v) {
			if e := wantRPCError(t, "tools/call", raw, err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, `invalid arguments for tool "wait"`) {
				t.Errorf("%s: %v, want -32602", v, e)
			}
			continue
		}
		if err != nil || member(t, raw, "isError") != "true" || !strings.Contains(text1(t, raw), `invalid arguments for tool "wait"`) {
			t.Errorf("%s: %s %v, want a tool error naming the tool", v, raw, err)
		}
	}
}

func TestTools_Errors(t *testing.T) {
	for _, v := range []string{mcp.Version20250618, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			c := open(t, toolServer(t), v, `{}`, nil)
			res := c.mustCall("tools/call", `{"name":"fail"}`)
			if member(t, res, "isError") != "true" || member(t, res, "content") != `[{"type":"text","text":"the tool broke"}]` {
				t.Errorf("a handler error became %s, want an isError result", res)
			}
			if e := c.callErr("tools/call", `{"name":"protocol_error"}`); e.Code != -32099 || e.Message != "custom" {
				t.Errorf("a *jsonrpc.Error from the handler became %v", e)
			}
			if e := c.callErr("tools/call", `{"name":"nope"}`); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, `"nope"`) {
				t.Errorf("unknown tool: %v", e)
			}
			if e := c.callErr("tools/call", `{"name":"panic"}`); e.Code != jsonrpc.CodeInternalError {
				t.Errorf("a panicking handler: %v, want -32603", e)
			}
			c.mustCall("tools/call", `{"name":"echo","arguments":{"text":"still alive"}}`)
			if e := c.callErr("tools/call", `{"name":7}`); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "tools/call") {
				t.Errorf("malformed params: %v", e)
			}
		})
	}
}

func TestTools_PassThroughResultIsNotModified(t *testing.T) {
	c := open(t, toolServer(t), mcp.Version20260728, `{}`, nil)
	for range 2 {
		res := c.mustCall("tools/call", `{"name":"raw_result","arguments":{}}`)
		if member(t, res, "content") != `[{"type":"text","text":"shared"}]` || member(t, res, "resultType") != `"complete"` {
			t.Errorf("result %s", res)
		}
	}
	if sharedResult.ResultType != "" || sharedResult.Meta != nil {
		t.Errorf("the server modified the handler's result: %+v", sharedResult.Result)
	}
}

func TestTools_RawTool(t *testing.T) {
	c := open(t, toolServer(t), mcp.Version20250326, `{}`, nil)
	res := c.mustCall("tools/call", `{"name":"raw","arguments":{"a":[1, 2]}}`)
	if got := member(t, res, "content"); got != `[{"type":"text","text":"{\"a\":[1,2]}"}]` {
		t.Errorf("raw tool got %s", got)
	}
	if e := c.callErr("tools/call", `{"name":"raw","arguments":[1]}`); e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("non-object arguments: %v", e)
	}
}

func TestTools_RequiredCapabilities(t *testing.T) {
	s := toolServer(t)
	modern := open(t, s, mcp.Version20260728, `{"elicitation":{}}`, nil)
	e := modern.callErr("tools/call", `{"name":"needs_sampling"}`)
	if e.Code != mcp.CodeMissingRequiredClientCapability || string(e.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
		t.Errorf("modern call without sampling: %v data %s", e, e.Data)
	}
	withSampling := open(t, s, mcp.Version20260728, `{"sampling":{}}`, nil)
	withSampling.mustCall("tools/call", `{"name":"needs_sampling"}`)

	legacy := open(t, s, mcp.Version20251125, `{}`, nil)
	res := legacy.mustCall("tools/call", `{"name":"needs_sampling"}`)
	if member(t, res, "isError") != "true" || !strings.Contains(member(t, res, "content"), `{\"sampling\":{}}`) {
		t.Errorf("legacy call without sampling: %s", res)
	}
}

func TestTools_RemoveAndReplace(t *testing.T) {
	s := toolServer(t)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	AddTool(s, &mcp.Tool{Name: "echo", Description: "Shouts."}, func(_ context.Context, _ *Request, in echoIn) (string, error) {
		return strings.ToUpper(in.Text), nil
	})
	s.RemoveTools("fail", "not-there")
	var lr mcp.ListToolsResult
	decode(t, c.mustCall("tools/list", `{}`), &lr)
	if lr.Tools[0].Name != "echo" || lr.Tools[0].Description != "Shouts." || lr.Tools[2].Name != "protocol_error" {
		t.Errorf("after replacing echo and removing fail: %v, %v, %v", lr.Tools[0].Name, lr.Tools[0].Description, lr.Tools[2].Name)
	}
	if e := c.callErr("tools/call", `{"name":"fail"}`); e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a removed tool: %v", e)
	}
}

func TestTools_RegistrationPanicsOnProgrammingErrors(t *testing.T) {
	s := newTestServer(t, nil)
	cases := map[string]func(){
		"no name":           func() { s.AddRawTool(&mcp.Tool{}, nil) },
		"non-object schema": func() { s.AddRawTool(&mcp.Tool{Name: "x", InputSchema: stdjson.RawMessage(`{"type":"string"}`)}, nil) },
		"remote ref": func() {
			s.AddRawTool(&mcp.Tool{Name: "x", InputSchema: stdjson.RawMessage(`{"type":"object","$ref":"https://example.com/s.json"}`)}, nil)
		},
		"non-object In": func() {
			AddTool(s, &mcp.Tool{Name: "x"}, func(context.Context, *Request, string) (any, error) { return nil, nil })
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f()
		})
	}
	if s.tools.len() != 0 {
		t.Errorf("a failed registration registered something")
	}
}
