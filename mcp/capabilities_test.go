package mcp

import "testing"

func TestCapabilityExamplesRoundTrip(t *testing.T) {
	// Spec examples: ClientCapabilities/* and ServerCapabilities/* (2026-07-28).
	for _, wire := range []string{
		`{"elicitation":{"form":{},"url":{}}}`,
		`{"elicitation":{}}`,
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`,
		`{"roots":{}}`,
		`{"sampling":{"context":{}}}`,
		`{"sampling":{}}`,
		`{"sampling":{"tools":{}}}`,
		`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}},
		  "tasks":{"requests":{"elicitation":{"create":{}},"sampling":{"createMessage":{}}}}}`,
		`{"experimental":{"x.example/feature":{"level":2}}}`,
	} {
		roundTrip[ClientCapabilities](t, wire, "")
	}
	for _, wire := range []string{
		`{"completions":{}}`,
		`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`,
		`{"logging":{}}`,
		`{"prompts":{"listChanged":true}}`,
		`{"prompts":{}}`,
		`{"resources":{"subscribe":true,"listChanged":true}}`,
		`{"resources":{"listChanged":true}}`,
		`{"resources":{}}`,
		`{"resources":{"subscribe":true}}`,
		`{"tools":{"listChanged":true}}`,
		`{"tools":{}}`,
		`{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},
		  "tools":{"listChanged":true},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`,
	} {
		roundTrip[ServerCapabilities](t, wire, "")
	}
}

func TestUnknownCapabilitiesFromNewerPeersAreIgnored(t *testing.T) {
	c := roundTrip[ClientCapabilities](t, `{"roots":{},"teleport":{"now":true}}`, `{"roots":{}}`)
	if c.Roots == nil {
		t.Error("roots lost")
	}
}

func TestEmptyCapabilityObjectMeansPresent(t *testing.T) {
	s := roundTrip[ServerCapabilities](t, `{"logging":{},"tasks":{"requests":{"tools":{"call":{}}}}}`, "")
	if s.Logging == nil {
		t.Error(`"logging":{} decoded as absent`)
	}
	if !s.AcceptsToolCallTasks() {
		t.Error("tasks.requests.tools.call not recognised")
	}
	if (ServerCapabilities{Tasks: &ServerTasksCapability{List: JSONObject{}}}).AcceptsToolCallTasks() {
		t.Error("tasks without requests.tools.call accepted tool call tasks")
	}
}

func TestElicitationModeSupport(t *testing.T) {
	tests := []struct {
		wire      string
		form, url bool
	}{
		{`{}`, false, false},
		{`{"elicitation":{}}`, true, false}, // no mode named: form only
		{`{"elicitation":{"form":{}}}`, true, false},
		{`{"elicitation":{"url":{}}}`, false, true},
		{`{"elicitation":{"form":{},"url":{}}}`, true, true},
	}
	for _, tt := range tests {
		c := roundTrip[ClientCapabilities](t, tt.wire, "")
		if got := c.Elicitation.SupportsForm(); got != tt.form {
			t.Errorf("%s: SupportsForm() = %v, want %v", tt.wire, got, tt.form)
		}
		if got := c.Elicitation.SupportsURL(); got != tt.url {
			t.Errorf("%s: SupportsURL() = %v, want %v", tt.wire, got, tt.url)
		}
	}
}

func TestCovers(t *testing.T) {
	tasksExt := ClientCapabilities{Extensions: map[string]JSONObject{ExtensionTasks: {}}}
	tests := []struct {
		name          string
		have, require string
		want          bool
	}{
		{"nothing required", `{}`, `{}`, true},
		{"extension declared", `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, true},
		{"extension missing", `{"extensions":{"io.modelcontextprotocol/ui":{}}}`, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, false},
		{"legacy tasks is not the extension", `{"tasks":{"list":{}}}`, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, false},
		{"settings not compared", `{"extensions":{"io.modelcontextprotocol/tasks":{"a":1}}}`, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, true},
		{"implicit form covers form", `{"elicitation":{}}`, `{"elicitation":{"form":{}}}`, true},
		{"implicit form covers implicit form", `{"elicitation":{}}`, `{"elicitation":{}}`, true},
		{"url only lacks implicit form", `{"elicitation":{"url":{}}}`, `{"elicitation":{}}`, false},
		{"form lacks url", `{"elicitation":{"form":{}}}`, `{"elicitation":{"url":{}}}`, false},
		{"both cover url", `{"elicitation":{"form":{},"url":{}}}`, `{"elicitation":{"url":{}}}`, true},
		{"no elicitation", `{"sampling":{}}`, `{"elicitation":{}}`, false},
		{"sampling", `{"sampling":{}}`, `{"sampling":{}}`, true},
		{"sampling tools missing", `{"sampling":{}}`, `{"sampling":{"tools":{}}}`, false},
		{"sampling tools", `{"sampling":{"tools":{},"context":{}}}`, `{"sampling":{"tools":{}}}`, true},
		{"sampling context missing", `{"sampling":{"tools":{}}}`, `{"sampling":{"context":{}}}`, false},
		{"roots", `{"roots":{}}`, `{"roots":{}}`, true},
		{"roots listChanged missing", `{"roots":{}}`, `{"roots":{"listChanged":true}}`, false},
		{"roots listChanged", `{"roots":{"listChanged":true}}`, `{"roots":{}}`, true},
		{"experimental", `{"experimental":{"a":{}}}`, `{"experimental":{"b":{}}}`, false},
		{"legacy task requests", `{"tasks":{"requests":{"sampling":{"createMessage":{}}}}}`, `{"tasks":{"requests":{"sampling":{"createMessage":{}}}}}`, true},
		{"legacy task request missing", `{"tasks":{"requests":{"sampling":{"createMessage":{}}}}}`, `{"tasks":{"requests":{"elicitation":{"create":{}}}}}`, false},
		{"legacy tasks cancel missing", `{"tasks":{"list":{}}}`, `{"tasks":{"cancel":{}}}`, false},
		{"legacy tasks requests missing", `{"tasks":{"list":{}}}`, `{"tasks":{"requests":{}}}`, false},
	}
	for _, tt := range tests {
		have := roundTrip[ClientCapabilities](t, tt.have, "")
		req := roundTrip[ClientCapabilities](t, tt.require, "")
		if got := have.Covers(*req); got != tt.want {
			t.Errorf("%s: %s covers %s = %v, want %v", tt.name, tt.have, tt.require, got, tt.want)
		}
	}
	if !tasksExt.HasExtension(ExtensionTasks) || (ClientCapabilities{}).HasExtension(ExtensionTasks) {
		t.Error("ClientCapabilities.HasExtension misreports the tasks extension")
	}
	server := roundTrip[ServerCapabilities](t, `{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`, "")
	if !server.HasExtension(ExtensionTasks) || server.HasExtension("io.modelcontextprotocol/ui") || server.Tasks != nil {
		t.Error("ServerCapabilities.HasExtension misreports the tasks extension")
	}
}
