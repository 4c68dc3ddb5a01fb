package client

import (
	"context"
	stdjson "encoding/json"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// defaultsForm is the form of the conformance scenario
// elicitation-sep1034-client-defaults: every field has a default.
func defaultsForm() *mcp.ElicitParams {
	prop := func(name, typ, def string) mcp.ElicitProperty {
		return mcp.ElicitProperty{Name: name, Schema: mcp.PrimitiveSchema{Type: typ, Default: stdjson.RawMessage(def)}}
	}
	return &mcp.ElicitParams{Message: "accept with defaults", RequestedSchema: &mcp.ElicitSchema{Type: "object", Properties: mcp.ElicitProperties{
		prop("name", "string", `"John Doe"`),
		prop("age", "integer", `30`),
		prop("score", "number", `95.5`),
		{Name: "status", Schema: mcp.PrimitiveSchema{Type: "string", Enum: []string{"active", "inactive"}, Default: stdjson.RawMessage(`"active"`)}},
		prop("verified", "boolean", `true`),
		{Name: "note", Schema: mcp.PrimitiveSchema{Type: "string"}},
	}}}
}

// acceptOnly accepts, answering only age.
func acceptOnly(_ context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"age": stdjson.RawMessage(`41`)}}, nil
}

// wantDefaults checks an accepted answer: the user's age, every other
// default, and nothing for the field without one.
func wantDefaults(t *testing.T, content mcp.JSONObject) {
	t.Helper()
	want := map[string]string{"name": `"John Doe"`, "age": `41`, "score": `95.5`, "status": `"active"`, "verified": `true`}
	if len(content) != len(want) {
		t.Errorf("content = %s, want exactly %v", content, want)
	}
	for k, v := range want {
		if string(content[k]) != v {
			t.Errorf("content[%q] = %s, want %s", k, content[k], v)
		}
	}
}

// SEP-1034: a client fills in the defaults of the fields an accepted form
// leaves out, for a legacy elicitation/create.
func TestAcceptedElicitationGetsTheSchemaDefaultsOnALegacySession(t *testing.T) {
	_, p := connect(t, &Options{ProtocolVersion: mcp.Version20251125, ElicitForm: acceptOnly}, nil)
	var res mcp.ElicitResult
	if err := p.conn.Call(testCtx(t), mcp.MethodElicitationCreate, defaultsForm(), &res); err != nil {
		t.Fatal(err)
	}
	wantDefaults(t, res.Content)
}

// SEP-1034 in a multi round-trip input request, and only for an accepted
// form: a declined one stays as the handler said.
func TestAcceptedElicitationGetsTheSchemaDefaultsInAnInputRequest(t *testing.T) {
	decline := false
	handler := func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if decline {
			return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
		}
		return acceptOnly(ctx, p)
	}
	s, p := connect(t, &Options{ElicitForm: handler}, nil)
	var answers []mcp.ElicitResult
	p.handlers[mcp.MethodToolsCall] = func(_ context.Context, req *jsonrpc.Request) (any, error) {
		rp := retryParams(t, req)
		if rp.InputResponses == nil {
			return inputRequired(t, "", map[string]any{"elicit": defaultsForm()}), nil
		}
		var r mcp.ElicitResult
		if err := json.Unmarshal(rp.InputResponses["elicit"], &r); err != nil {
			return nil, err
		}
		answers = append(answers, r)
		return stdjson.RawMessage(completeToolResult), nil
	}
	if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	decline = true
	if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t"}); err != nil {
		t.Fatal(err)
	}
	wantDefaults(t, answers[0].Content)
	if answers[1].Action != mcp.ElicitDecline || answers[1].Content != nil {
		t.Errorf("declined answer = %+v, want a decline without content", answers[1])
	}
}

// The handler's own result is never modified.
func TestDefaultsLeaveTheHandlersResultAlone(t *testing.T) {
	own := &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"age": stdjson.RawMessage(`41`)}}
	got := withDefaults(defaultsForm(), own)
	if len(own.Content) != 1 {
		t.Errorf("the handler's content became %s", own.Content)
	}
	wantDefaults(t, got.Content)
}
