package jsonkind

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestNameOfEveryKind(t *testing.T) {
	for raw, want := range map[string]string{`{}`: "object", `[]`: "array", `"s"`: "string", `1.5`: "number",
		`true`: "boolean", `false`: "boolean", `null`: "null"} {
		if got := Name(jsontext.Value(raw).Kind()); got != want {
			t.Errorf("Name(kind of %s) = %q; want %q", raw, got, want)
		}
	}
	if got := Name(0); got != "value" {
		t.Errorf("Name(0) = %q; want \"value\"", got)
	}
}
