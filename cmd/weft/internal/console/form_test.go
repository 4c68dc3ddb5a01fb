package console

import (
	"strings"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// schema is a form with one field of each kind.
var schema = &mcp.ElicitSchema{
	Type: "object",
	Properties: mcp.ElicitProperties{
		{Name: "ok", Schema: mcp.PrimitiveSchema{Type: "boolean", Title: "OK"}},
		{Name: "count", Schema: mcp.PrimitiveSchema{Type: "integer"}},
		{Name: "ratio", Schema: mcp.PrimitiveSchema{Type: "number"}},
		{Name: "color", Schema: mcp.PrimitiveSchema{Type: "string", Enum: []string{"red", "blue"}}},
		{Name: "tags", Schema: mcp.PrimitiveSchema{Type: "array", Items: &mcp.EnumItems{Type: "string", Enum: []string{"a", "b", "c"}}}},
		{Name: "note", Schema: mcp.PrimitiveSchema{Type: "string"}},
		{Name: "size", Schema: mcp.PrimitiveSchema{Type: "string", Default: []byte(`"M"`)}},
	},
	Required: []string{"ok", "count", "ratio", "color", "tags"},
}

func ask(t *testing.T, input string, p *mcp.ElicitParams) (*mcp.ElicitResult, string) {
	t.Helper()
	var out strings.Builder
	res, err := NewForm(strings.NewReader(input), &out).Ask(p)
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	return res, out.String()
}

func TestFormAcceptsTypedAnswersAndReasksWrongOnes(t *testing.T) {
	input := strings.Join([]string{
		"y",     // answer the form
		"maybe", // not a boolean: asked again
		"yes",   // ok
		"1.5",   // not an integer: asked again
		"3",     // count
		"x",     // not a number: asked again
		"0.25",  // ratio
		"green", // not an option: asked again
		"blue",  // color
		"a, c",  // tags
		"",      // note: optional, left out
		"",      // size: its default
	}, "\n") + "\n"
	res, out := ask(t, input, &mcp.ElicitParams{Message: "Configure?", RequestedSchema: schema})
	if res.Action != mcp.ElicitAccept {
		t.Fatalf("action = %q, want accept", res.Action)
	}
	want := map[string]string{"ok": "true", "count": "3", "ratio": "0.25", "color": `"blue"`, "tags": `["a","c"]`, "size": `"M"`}
	for k, v := range want {
		if got := string(res.Content[k]); got != v {
			t.Errorf("content[%s] = %s, want %s", k, got, v)
		}
	}
	if _, ok := res.Content["note"]; ok {
		t.Errorf("the optional field left empty was sent: %s", res.Content["note"])
	}
	for _, msg := range []string{"The server asks: Configure?", "please answer yes or no", `"1.5" is not a whole number`, `"x" is not a number`, `"green" is not one of red, blue`} {
		if !strings.Contains(out, msg) {
			t.Errorf("the form never said %q; it said:\n%s", msg, out)
		}
	}
}

func TestFormDeclinesAndCancels(t *testing.T) {
	p := &mcp.ElicitParams{Message: "Go?", RequestedSchema: schema}
	if res, _ := ask(t, "n\n", p); res.Action != mcp.ElicitDecline {
		t.Errorf("n: action = %q, want decline", res.Action)
	}
	if res, _ := ask(t, "c\n", p); res.Action != mcp.ElicitCancel {
		t.Errorf("c: action = %q, want cancel", res.Action)
	}
	// The input ends in the middle of the form: nothing half-filled is sent.
	if res, _ := ask(t, "y\nyes\n", p); res.Action != mcp.ElicitCancel || res.Content != nil {
		t.Errorf("input ended: result = %+v, want cancel with no content", res)
	}
}

func TestFormRequiresRequiredFields(t *testing.T) {
	p := &mcp.ElicitParams{Message: "Name?", RequestedSchema: &mcp.ElicitSchema{
		Type:       "object",
		Properties: mcp.ElicitProperties{{Name: "name", Schema: mcp.PrimitiveSchema{Type: "string"}}, {Name: "note", Schema: mcp.PrimitiveSchema{Type: "string"}}},
		Required:   []string{"name"},
	}}
	res, out := ask(t, "\n\nAda\n\n", p)
	if got := string(res.Content["name"]); got != `"Ada"` {
		t.Errorf("name = %s, want \"Ada\"", got)
	}
	if !strings.Contains(out, "An answer is required.") {
		t.Errorf("an empty required answer was not refused:\n%s", out)
	}
}

func TestFormURLMode(t *testing.T) {
	res, out := ask(t, "\n", &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Sign in", URL: "https://example.com/login"})
	if res.Action != mcp.ElicitAccept || res.Content != nil {
		t.Errorf("result = %+v, want accept with no content", res)
	}
	if !strings.Contains(out, "Open https://example.com/login") {
		t.Errorf("the URL was not shown:\n%s", out)
	}
}

// TestFormAsksYesNoOnce checks that a one-field form, such as a yes/no
// question, is asked once: "n" answers no, an empty answer declines, and
// the end of the input cancels.
func TestFormAsksYesNoOnce(t *testing.T) {
	p := &mcp.ElicitParams{Message: "Ship it?", RequestedSchema: &mcp.ElicitSchema{
		Type:       "object",
		Properties: mcp.ElicitProperties{{Name: "answer", Schema: mcp.PrimitiveSchema{Type: "boolean", Title: "Answer", Description: "yes or no"}}},
		Required:   []string{"answer"},
	}}
	res, out := ask(t, "n\n", p)
	if res.Action != mcp.ElicitAccept || string(res.Content["answer"]) != "false" {
		t.Errorf("answering n: result = %+v, want accept with answer false", res)
	}
	if want := "  Answer (yes or no; Enter alone declines): "; strings.Count(out, "Answer") != 1 || !strings.Contains(out, want) {
		t.Errorf("the question was not asked once, as %q:\n%s", want, out)
	}
	if res, _ := ask(t, "yes\n", p); res.Action != mcp.ElicitAccept || string(res.Content["answer"]) != "true" {
		t.Errorf("answering yes: result = %+v, want accept with answer true", res)
	}
	if res, _ := ask(t, "\n", p); res.Action != mcp.ElicitDecline {
		t.Errorf("answering nothing: result = %+v, want decline", res)
	}
	if res, _ := ask(t, "", p); res.Action != mcp.ElicitCancel {
		t.Errorf("at the end of the input: result = %+v, want cancel", res)
	}
}
