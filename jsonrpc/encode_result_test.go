package jsonrpc

import (
	stdjson "encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// A result the Conn encoded itself is written as is; that must be exactly
// what checking and compacting it would have written.
func TestEncodedResultsAreWrittenAsCheckingWouldWriteThem(t *testing.T) {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	values := []any{
		map[string]any{"content": []content{{"text", "plain"}}},
		struct {
			Text  string             `json:"text"`
			Raw   stdjson.RawMessage `json:"raw"`
			Value jsontext.Value     `json:"value"`
		}{"<b>&amp;</b> \u00e9\u2028 \"quoted\" \t", stdjson.RawMessage("{ \"a\" :\n [1, 2] }"), jsontext.Value(" [ true , null ] ")},
		[]int(nil),
		3.25,
		"just a string",
	}
	for _, v := range values {
		raw, encoded, err := marshalResult(v)
		if err != nil || !encoded {
			t.Fatalf("marshalResult(%#v) = %s, %v, %v; want encoded JSON", v, raw, encoded, err)
		}
		fast, err := AppendMessage(nil, &Response{ID: Int64ID(1), Result: raw, encoded: raw})
		if err != nil {
			t.Fatalf("encoding the response with %s: %v", raw, err)
		}
		checked, err := AppendMessage(nil, &Response{ID: Int64ID(1), Result: raw})
		if err != nil {
			t.Fatalf("encoding the response with %s, checked: %v", raw, err)
		}
		if string(fast) != string(checked) {
			t.Errorf("written as is: %s\nchecked: %s", fast, checked)
		}
	}
}

// Only results the Conn encoded itself skip the check: a raw result from a
// handler, and a result replaced after the Conn made the response, are
// checked and compacted.
func TestOtherResultsAreChecked(t *testing.T) {
	raw, encoded, err := marshalResult(stdjson.RawMessage("{ \"a\": 1 }"))
	if err != nil || encoded {
		t.Fatalf("marshalResult of a raw result = %s, %v, %v; want it valid and not marked encoded", raw, encoded, err)
	}
	if got, err := AppendMessage(nil, &Response{ID: Int64ID(1), Result: raw}); err != nil || string(got) != `{"jsonrpc":"2.0","id":1,"result":{"a":1}}` {
		t.Errorf("raw result written as %s, %v; want it compacted", got, err)
	}

	made, _, _ := marshalResult(map[string]int{"a": 1})
	resp := &Response{ID: Int64ID(2), Result: made, encoded: made}
	resp.Result = stdjson.RawMessage(`{"a":1,"a":2}`)
	if got, err := AppendMessage(nil, resp); err == nil {
		t.Errorf("a replaced result with duplicate names was written unchecked: %s", got)
	}
}
