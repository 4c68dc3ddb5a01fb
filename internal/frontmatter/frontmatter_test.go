package frontmatter

import (
	stdjson "encoding/json"
	"errors"
	"testing"
)

// TestParseRendersYAMLAsJSON: the frontmatter's values keep the types a
// YAML 1.2 parser gives them (timestamps stay strings), a BOM and CRLF line
// ends are tolerated, and the body follows the closing line.
func TestParseRendersYAMLAsJSON(t *testing.T) {
	text := "\ufeff---\r\nname: pdf\r\ndescription: \"Work with PDFs\"\r\nversion: 2\r\nratio: 1.5\r\nbeta: true\r\n" +
		"released: 2026-01-26\r\nnone: ~\r\nmetadata:\r\n  tags: [a, b]\r\n---\r\nBody\n"
	fm, body, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name": `"pdf"`, "description": `"Work with PDFs"`, "version": `2`, "ratio": `1.5`,
		"beta": `true`, "released": `"2026-01-26"`, "none": `null`, "metadata": `{"tags":["a","b"]}`}
	for k, v := range want {
		if string(fm[k]) != v {
			t.Errorf("%s = %s, want %s", k, fm[k], v)
		}
	}
	if len(fm) != len(want) || string(body) != "Body\n" {
		t.Errorf("members %d, body %q", len(fm), body)
	}
	for _, bad := range []string{"# no frontmatter\n", "---\nname: [unclosed\n---\n", "---\n- a\n---\n", "---\n1: x\nobj: {2: y}\n---\n", "---\nx: .inf\n---\n"} {
		if _, _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded; want an error", bad)
		}
	}
	if _, _, err := Parse([]byte("no block")); !errors.Is(err, ErrNone) {
		t.Errorf("Parse without a block: %v, want ErrNone", err)
	}
}

// TestEqualComparesValuesNotSpelling: members compare as JSON values, in
// any order and number spelling, and a missing member equals null.
func TestEqualComparesValuesNotSpelling(t *testing.T) {
	obj := func(s string) map[string]stdjson.RawMessage {
		var m map[string]stdjson.RawMessage
		if err := stdjson.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"n":1,"o":{"x":[1,2]}}`, `{"o":{"x":[1.0,2]},"n":1e0}`, true},
		{`{"n":1,"z":null}`, `{"n":1}`, true},
		{`{"d":"a"}`, `{"d":"b"}`, false},
		{`{"o":{"x":[1,2]}}`, `{"o":{"x":[2,1]}}`, false},
		{`{"n":1}`, `{"n":1,"extra":"x"}`, false},
	} {
		if got := Equal(obj(c.a), obj(c.b)); got != c.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
