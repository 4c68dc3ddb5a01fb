package streamable

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestHeaderValueEncoding(t *testing.T) {
	// The examples of the specification's Value Encoding table.
	tests := []struct{ value, header string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"", ""},
	}
	for _, tt := range tests {
		if got := EncodeHeaderValue(tt.value); got != tt.header {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", tt.value, got, tt.header)
		}
		if got, err := DecodeHeaderValue(tt.header); err != nil || got != tt.value {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q", tt.header, got, err, tt.value)
		}
	}
	for _, bad := range []string{"=?base64?@@@?=", "caf\xc3\xa9", "a\x01b"} {
		if _, err := DecodeHeaderValue(bad); err == nil {
			t.Errorf("DecodeHeaderValue(%q) succeeded", bad)
		}
	}
}

func TestHeaderTextOfArguments(t *testing.T) {
	tests := []struct {
		json, text string
		ok         bool
	}{
		{`"s"`, "s", true},
		{`42`, "42", true},
		{`-7`, "-7", true},
		{`42.0`, "42", true},
		{`true`, "true", true},
		{`false`, "false", true},
		{`1.5`, "", false},
		{`9007199254740993`, "", false},
		{`{}`, "", false},
		{`[1]`, "", false},
	}
	for _, tt := range tests {
		text, err := headerText(jsontext.Value(tt.json))
		if (err == nil) != tt.ok || text != tt.text {
			t.Errorf("headerText(%s) = %q, %v; want %q (ok %v)", tt.json, text, err, tt.text, tt.ok)
		}
	}
	if !sameValue("42", jsontext.Value("42.0")) {
		t.Error("sameValue(42, 42.0) is false; numbers compare numerically")
	}
	if !sameValue("42", jsontext.Value(`"42"`)) || sameValue("42 ", jsontext.Value(`"42"`)) {
		t.Error("strings compare as exact text")
	}
	if sameValue("true", jsontext.Value("1")) {
		t.Error("sameValue(true, 1) is true")
	}
}

func TestArgumentAt(t *testing.T) {
	args := jsontext.Value(`{"a":{"b":"deep"},"n":null,"x":1}`)
	if v, err := argumentAt(args, []string{"a", "b"}); err != nil || string(v) != `"deep"` {
		t.Errorf("a.b = %s, %v", v, err)
	}
	for _, path := range [][]string{{"n"}, {"missing"}, {"x", "y"}} {
		if _, err := argumentAt(args, path); err != errNoValue {
			t.Errorf("%s: %v, want errNoValue", strings.Join(path, "."), err)
		}
	}
	if _, err := argumentAt(nil, []string{"a"}); err != errNoValue {
		t.Errorf("no arguments: %v, want errNoValue", err)
	}
}
