package mcp

import (
	"strings"
	"testing"
)

func TestToolExamplesRoundTrip(t *testing.T) {
	// Spec examples: Tool/* (2026-07-28).
	for _, wire := range []string{
		`{"name":"calculate_sum","description":"Add two numbers","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}`,
		`{"name":"calculate_sum","description":"Add two numbers","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}`,
		`{"name":"get_current_time","description":"Returns the current server time","inputSchema":{"type":"object","additionalProperties":false}}`,
		`{"name":"list_users","title":"User List","description":"Returns a list of all users","inputSchema":{"type":"object","properties":{}},
		  "outputSchema":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}}`,
		`{"name":"find_resource","title":"Resource Finder","description":"Find a resource by ID or name","inputSchema":{"type":"object",
		  "oneOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"name":{"type":"string"}},"required":["name"]}]}}`,
		`{"name":"get_weather","title":"Weather Information Provider","description":"Get current weather information for a location",
		  "inputSchema":{"type":"object","properties":{"location":{"type":"string","description":"City name or zip code"}},"required":["location"]},
		  "icons":[{"src":"https://example.com/weather-icon.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}],
		  "annotations":{"title":"Weather","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},
		  "execution":{"taskSupport":"optional"},"_meta":{"x.example/k":"v"}}`,
	} {
		roundTrip[Tool](t, wire, "")
	}
}

func TestToolSchemaBytesKeepMemberOrder(t *testing.T) {
	schema := `{"type":"object","required":["z","a"],"properties":{"z":{"type":"string"},"a":{"type":"integer","minimum":1.50}}}`
	got := string(encode(t, &Tool{Name: "t", InputSchema: []byte(schema)}))
	want := `{"name":"t","inputSchema":` + schema + `}`
	if got != want {
		t.Errorf("tool encodes as\n %s\nwant\n %s", got, want)
	}
}

func TestToolAnnotationFalseHintsAreKept(t *testing.T) {
	f := false
	got := string(encode(t, &ToolAnnotations{DestructiveHint: &f}))
	if got != `{"destructiveHint":false}` {
		t.Errorf("annotations = %s", got)
	}
}

func TestToolTaskSupportDefaultsToForbidden(t *testing.T) {
	for _, tt := range []struct {
		tool Tool
		want TaskSupport
	}{
		{Tool{}, TaskSupportForbidden},
		{Tool{Execution: &ToolExecution{}}, TaskSupportForbidden},
		{Tool{Execution: &ToolExecution{TaskSupport: TaskSupportOptional}}, TaskSupportOptional},
		{Tool{Execution: &ToolExecution{TaskSupport: TaskSupportRequired}}, TaskSupportRequired},
	} {
		if got := tt.tool.TaskSupport(); got != tt.want {
			t.Errorf("TaskSupport() = %q, want %q", got, tt.want)
		}
	}
}

func TestListToolsResultExample(t *testing.T) {
	r := roundTrip[ListToolsResult](t, `{"resultType":"complete","tools":[{"name":"get_weather","title":"Weather Information Provider",
	  "description":"Get current weather information for a location","inputSchema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]},
	  "icons":[{"src":"https://example.com/weather-icon.png","mimeType":"image/png","sizes":["48x48"]}]}],
	  "nextCursor":"next-page-cursor","ttlMs":300000,"cacheScope":"public"}`, "")
	if r.NextCursor != "next-page-cursor" || r.Cache.TTLMs != 300000 || len(r.Tools) != 1 {
		t.Errorf("list decoded as %+v", r)
	}
}

func TestCallToolParams(t *testing.T) {
	// 2025-11-25 task-augmented call.
	p := roundTrip[CallToolParams](t, `{"name":"get_weather","arguments":{"city":"New York"},"task":{"ttl":60000}}`, "")
	if p.Task == nil || p.Task.TTL == nil || *p.Task.TTL != 60000 {
		t.Errorf("task = %+v", p.Task)
	}
	// A task request without ttl is still a task request.
	p = roundTrip[CallToolParams](t, `{"name":"n","task":{}}`, "")
	if p.Task == nil || p.Task.TTL != nil {
		t.Errorf("empty task = %+v", p.Task)
	}
	// Modern retry after an InputRequiredResult.
	p = roundTrip[CallToolParams](t, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},
	  "name":"test_tool_with_task","arguments":{},
	  "inputResponses":{"name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"opaque"}`, "")
	er, err := p.InputResponseBase().InputResponses.ElicitResult("name")
	if err != nil || er.Action != ElicitAccept {
		t.Errorf("ElicitResult = %+v, %v", er, err)
	}
	assertSameJSON(t, er.Content["name"], `"Alice"`)
	if p.RequestState != "opaque" {
		t.Errorf("requestState = %q", p.RequestState)
	}
	// No arguments: the member is omitted, not null.
	if got := string(encode(t, &CallToolParams{Name: "x"})); got != `{"name":"x"}` {
		t.Errorf("bare call = %s", got)
	}
}

func TestCallToolResultExamples(t *testing.T) {
	// Spec examples: CallToolResult/*.
	roundTrip[CallToolResult](t, `{"resultType":"complete","content":[{"type":"text","text":"Invalid departure date: must be in the future. Current date is 08/08/2025."}],"isError":true}`, "")
	roundTrip[CallToolResult](t, `{"resultType":"complete","content":[{"type":"text","text":"Found 2 users"}],
	  "structuredContent":[{"id":"1","name":"Alice","email":"alice@example.com"},{"id":"2","name":"Bob","email":"bob@example.com"}]}`, "")
	roundTrip[CallToolResult](t, `{"resultType":"complete","content":[{"type":"text","text":"{\"temperature\": 22.5}"}],
	  "structuredContent":{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}}`, "")
	// isError:false is the default and is omitted on the way out.
	roundTrip[CallToolResult](t, `{"resultType":"complete","content":[{"type":"text","text":"Current weather"}],"isError":false}`,
		`{"resultType":"complete","content":[{"type":"text","text":"Current weather"}]}`)
	// A structured null is a value, kept; a nil one is omitted.
	r := roundTrip[CallToolResult](t, `{"content":[],"structuredContent":null}`, "")
	if string(r.StructuredContent) != "null" {
		t.Errorf("structuredContent = %q", r.StructuredContent)
	}
}

func TestCallToolResultRejectsUnknownContent(t *testing.T) {
	var r CallToolResult
	err := (Meta{"r": []byte(`{"content":[{"type":"text","text":"a"},{"type":"hologram"}]}`)}).Decode("r", &r)
	if err == nil || !strings.Contains(err.Error(), `content item 1: content block type "hologram"`) {
		t.Errorf("err = %v", err)
	}
}

func TestMemberNamesMatchCaseSensitively(t *testing.T) {
	var tool Tool
	if err := (Meta{"t": []byte(`{"NAME":"x","Name":"y","inputschema":{}}`)}).Decode("t", &tool); err != nil {
		t.Fatal(err)
	}
	if tool.Name != "" || tool.InputSchema != nil {
		t.Errorf("differently cased members were taken: %+v", tool)
	}
	if err := (Meta{"t": []byte(`{"name":"x","name":"y"}`)}).Decode("t", &tool); err == nil {
		t.Error("a duplicate member was accepted")
	}
}
