package mcp

import (
	stdjson "encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// Meta's decoder reads what the json package's map decoding reads, the
// same way: names unescaped, values kept as they came, null as nil, and
// members added to a map that holds some already.
func TestMetaDecodesAsAMapOfRawValues(t *testing.T) {
	for _, in := range []string{
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"custom":[1, 2]}`,
		`{"a\u002fb":"escaped name","progressToken":7,"x":null,"long":"` + strings.Repeat("v", 600) + `"}`,
		`{}`,
		`null`,
	} {
		var got Meta
		if err := json.Unmarshal([]byte(in), &got); err != nil {
			t.Fatalf("Unmarshal(%s): %v", in, err)
		}
		var want map[string]stdjson.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(map[string]stdjson.RawMessage(got), want) {
			t.Errorf("Unmarshal(%s) = %q; want %q, as a map of raw values decodes", in, got, want)
		}
	}
	got := Meta{"kept": stdjson.RawMessage(`1`)}
	if err := json.Unmarshal([]byte(`{"added":2}`), &got); err != nil {
		t.Fatal(err)
	}
	if string(got["kept"]) != `1` || string(got["added"]) != `2` {
		t.Errorf("decoding into a Meta holding members gave %q; want both members", got)
	}
	if err := json.Unmarshal([]byte(`null`), &got); err != nil || got != nil {
		t.Errorf("decoding null into a Meta holding members gave %q, %v; want nil, as into a map", got, err)
	}
}

// Bad input gets an error, as from the json package: not an object, a
// name twice, a value cut short.
func TestMetaRefusesWhatIsNotAnObject(t *testing.T) {
	for _, in := range []string{`"text"`, `[1]`, `{"a":1,"a":2}`, `{"a":`, `{"a" 1}`} {
		var m Meta
		if err := json.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("Unmarshal(%s) = %q, nil; want an error", in, m)
		}
	}
}

// The values share one buffer, each with its capacity ending where it
// does: appending to one leaves the others as they were.
func TestMetaValuesDoNotOverlap(t *testing.T) {
	var m Meta
	if err := json.Unmarshal([]byte(`{"a":"1","b":"2","c":"3"}`), &m); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b", "c"} {
		m[name] = append(m[name], "XXXX"...)
	}
	if string(m["a"]) != `"1"XXXX` || string(m["b"]) != `"2"XXXX` || string(m["c"]) != `"3"XXXX` {
		t.Errorf("after appending to each value: %q; each value changed only by its own append", m)
	}
}
