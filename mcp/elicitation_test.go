package mcp

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

func TestElicitParamsExamples(t *testing.T) {
	// Spec example: ElicitRequestFormParams/elicit-multiple-fields.
	p := roundTrip[ElicitParams](t, `{"mode":"form","message":"Please provide your contact information",
	  "requestedSchema":{"type":"object","properties":{
	    "name":{"type":"string","description":"Your full name"},
	    "email":{"type":"string","format":"email","description":"Your email address"},
	    "age":{"type":"number","minimum":18,"description":"Your age"}},
	  "required":["name","email"]}}`, "")
	var names []string
	for _, prop := range p.RequestedSchema.Properties {
		names = append(names, prop.Name)
	}
	if !slices.Equal(names, []string{"name", "email", "age"}) {
		t.Errorf("property order = %v", names)
	}
	if *p.RequestedSchema.Properties[2].Schema.Minimum != 18 {
		t.Errorf("age schema = %+v", p.RequestedSchema.Properties[2].Schema)
	}
	// Spec example: ElicitRequestURLParams/elicit-sensitive-data (modern: no elicitationId).
	p = roundTrip[ElicitParams](t, `{"mode":"url","url":"https://mcp.example.com/ui/set_api_key","message":"Please provide your API key to continue."}`, "")
	if p.EffectiveMode() != ElicitModeURL || p.RequestedSchema != nil {
		t.Errorf("url params decoded as %+v", p)
	}
	// 2025-06-18 form: no mode member, so form.
	p = roundTrip[ElicitParams](t, `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`, "")
	if p.EffectiveMode() != ElicitModeForm {
		t.Errorf("mode = %q", p.EffectiveMode())
	}
}

func TestFormPropertiesKeepOrderAndRejectDuplicates(t *testing.T) {
	s := ElicitSchema{Type: "object", Properties: ElicitProperties{
		{Name: "zeta", Schema: PrimitiveSchema{Type: "string"}},
		{Name: "alpha", Schema: PrimitiveSchema{Type: "boolean"}},
	}}
	if got := string(encode(t, &s)); got != `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"boolean"}}}` {
		t.Errorf("schema = %s", got)
	}
	var ps ElicitProperties
	err := json.Unmarshal([]byte(`{"a":{"type":"string"},"a":{"type":"number"}}`), &ps)
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate property: err = %v", err)
	}
	if err := json.Unmarshal([]byte(`["a"]`), &ps); err == nil {
		t.Error("an array decoded as properties")
	}
}

func TestPrimitiveSchemaVariants(t *testing.T) {
	tests := []struct {
		wire   string
		values []string
	}{
		// SEP-1034 defaults on every primitive type.
		{`{"type":"string","title":"Display Name","description":"Description text","minLength":3,"maxLength":50,"format":"email","default":"user@example.com"}`, nil},
		{`{"type":"number","title":"Display Name","description":"Description text","minimum":0,"maximum":100,"default":50}`, nil},
		{`{"type":"boolean","title":"Display Name","description":"Description text","default":false}`, nil},
		// SEP-1330 enum variants.
		{`{"type":"string","title":"Color Selection","description":"Choose your favorite color","enum":["Red","Green","Blue"],"default":"Red"}`,
			[]string{"Red", "Green", "Blue"}},
		{`{"type":"string","title":"Color Selection","oneOf":[{"const":"#FF0000","title":"Red"},{"const":"#00FF00","title":"Green"}],"default":"#FF0000"}`,
			[]string{"#FF0000", "#00FF00"}},
		{`{"type":"array","title":"Color Selection","minItems":1,"maxItems":2,"items":{"type":"string","enum":["Red","Green","Blue"]},"default":["Red","Green"]}`,
			[]string{"Red", "Green", "Blue"}},
		{`{"type":"array","title":"Color Selection","minItems":1,"maxItems":2,"items":{"anyOf":[{"const":"#FF0000","title":"Red"},{"const":"#0000FF","title":"Blue"}]},"default":["#FF0000"]}`,
			[]string{"#FF0000", "#0000FF"}},
		// Legacy titled enum (2025-06-18).
		{`{"type":"string","enum":["a","b"],"enumNames":["A","B"]}`, []string{"a", "b"}},
	}
	for _, tt := range tests {
		s := roundTrip[PrimitiveSchema](t, tt.wire, "")
		if got := s.EnumValues(); !slices.Equal(got, tt.values) {
			t.Errorf("%s: EnumValues() = %v, want %v", tt.wire, got, tt.values)
		}
	}
	// Zero bounds are kept.
	s := roundTrip[PrimitiveSchema](t, `{"type":"integer","minimum":0,"maxLength":0}`, "")
	if s.Minimum == nil || s.MaxLength == nil {
		t.Errorf("zero bounds lost: %+v", s)
	}
}

func TestElicitResultExamples(t *testing.T) {
	r := roundTrip[ElicitResult](t, `{"action":"accept","content":{"name":"Monalisa Octocat","email":"octocat@github.com","age":30}}`, "")
	assertSameJSON(t, r.Content["age"], `30`)
	r = roundTrip[ElicitResult](t, `{"action":"accept"}`, "")
	if r.Content != nil {
		t.Errorf("url-mode accept has content %v", r.Content)
	}
	roundTrip[ElicitResult](t, `{"action":"decline"}`, "")
	roundTrip[ElicitResult](t, `{"action":"accept","content":{"colors":["Red","Green"],"ok":true}}`, "")
	roundTrip[ElicitationCompleteNotificationParams](t, `{"elicitationId":"550e8400-e29b-41d4-a716-446655440000"}`, "")
}
