package jsonrpc_test

import (
	stdjson "encoding/json"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
)

func TestIDConstructors(t *testing.T) {
	tests := []struct {
		id   jsonrpc.ID
		raw  string
		str  string
		ok   bool
		null bool
	}{
		{jsonrpc.ID{}, "", "<none>", false, false},
		{jsonrpc.NullID, "null", "null", true, true},
		{jsonrpc.Int64ID(42), "42", "42", true, false},
		{jsonrpc.Int64ID(-1), "-1", "-1", true, false},
		{jsonrpc.StringID("42"), `"42"`, `"42"`, true, false},
		{jsonrpc.StringID("<a&b>"), `"<a&b>"`, `"<a&b>"`, true, false},
		{jsonrpc.StringID("bad\xff"), `"bad` + "\ufffd" + `"`, `"bad` + "\ufffd" + `"`, true, false},
	}
	for _, tt := range tests {
		if tt.id.Raw() != tt.raw || tt.id.String() != tt.str || tt.id.IsValid() != tt.ok || tt.id.IsNull() != tt.null {
			t.Errorf("ID %q: Raw %q String %q IsValid %v IsNull %v; want %q %q %v %v",
				tt.id.Raw(), tt.id.Raw(), tt.id.String(), tt.id.IsValid(), tt.id.IsNull(), tt.raw, tt.str, tt.ok, tt.null)
		}
	}
}

// StringID and the decoder agree on the form of a string id, so an id built
// with StringID matches one read from the wire.
func TestStringIDMatchesDecodedID(t *testing.T) {
	for _, s := range []string{"plain", "<html>&", "quote\"back\\slash", "é", "tab\t", "\u2028"} {
		var id jsonrpc.ID
		wire, _ := stdjson.Marshal(s) // v1 escapes <, >, & and U+2028: a different spelling of the same string
		if err := json.Unmarshal(wire, &id); err != nil {
			t.Fatalf("Unmarshal(%s): %v", wire, err)
		}
		if id != jsonrpc.StringID(s) {
			t.Errorf("decoded %s as %s; StringID(%q) is %s", wire, id.Raw(), s, jsonrpc.StringID(s).Raw())
		}
	}
}

func TestIDJSONMethods(t *testing.T) {
	type holder struct {
		ID jsonrpc.ID `json:"id"`
	}
	for _, wire := range []string{`{"id":7}`, `{"id":"7"}`, `{"id":null}`} {
		var h holder
		if err := json.Unmarshal([]byte(wire), &h); err != nil {
			t.Fatalf("v2 Unmarshal(%s): %v", wire, err)
		}
		out, err := json.Marshal(h)
		if err != nil || string(out) != wire {
			t.Errorf("v2 round trip of %s = %s, %v", wire, out, err)
		}
		var h1 holder
		if err := stdjson.Unmarshal([]byte(wire), &h1); err != nil || h1 != h {
			t.Errorf("v1 Unmarshal(%s) = %v, %v; want %v", wire, h1, err, h)
		}
	}
	for _, wire := range []string{`{"id":1.5}`, `{"id":true}`, `{"id":[]}`, `{"id":{}}`, `{"id":1e2}`, `{"id":18446744073709551616}`} {
		var h holder
		if err := json.Unmarshal([]byte(wire), &h); err == nil {
			t.Errorf("Unmarshal(%s) accepted id %s", wire, h.ID)
		}
	}
	var absent holder
	if out, _ := json.Marshal(absent); string(out) != `{"id":null}` {
		t.Errorf("an absent id marshals as %s; want null", out)
	}
}
