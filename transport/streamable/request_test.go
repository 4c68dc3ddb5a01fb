package streamable

import (
	"net/http"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

func TestScanParams(t *testing.T) {
	params := []byte(`{"name":"t","_meta":{"other":{"x":[1]},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"arguments":{"a": [1, {"b":2}]},"uri":"u"}`)
	rp := scanParams("tools/call", params)
	if !rp.hasVersion || rp.version != "2026-07-28" || !rp.hasName || rp.name != "t" || string(rp.arguments) != `{"a": [1, {"b":2}]}` {
		t.Fatalf("got %+v (arguments %s)", rp, rp.arguments)
	}
	if rp := scanParams("resources/read", params); rp.name != "u" || rp.arguments != nil {
		t.Fatalf("resources/read: %+v", rp)
	}
	if rp := scanParams("tasks/get", []byte(`{"taskId":"t1"}`)); rp.name != "t1" || rp.hasVersion {
		t.Fatalf("tasks/get: %+v", rp)
	}
	if rp := scanParams("tools/call", []byte(`{"name":5,"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`)); rp.hasName || rp.hasVersion {
		t.Fatalf("members of the wrong type count as absent: %+v", rp)
	}
	if rp := scanParams("tools/list", nil); rp.hasVersion {
		t.Fatalf("no params: %+v", rp)
	}
}

func TestIsModern(t *testing.T) {
	modern := []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	legacyMeta := []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`)
	tests := []struct {
		name    string
		method  string
		params  []byte
		headers map[string]string
		want    bool
	}{
		{"modern _meta", "tools/list", modern, nil, true},
		{"modern _meta with a session header", "tools/list", modern, map[string]string{"Mcp-Session-Id": "s"}, true},
		{"legacy _meta without a session", "tools/list", legacyMeta, nil, true},
		{"legacy _meta in a session", "tools/list", legacyMeta, map[string]string{"Mcp-Session-Id": "s"}, false},
		{"initialize", "initialize", nil, map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, false},
		{"no _meta, modern header", "tools/list", nil, map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, true},
		{"no _meta, legacy header", "tools/list", nil, map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, false},
		{"nothing", "tools/list", nil, nil, false},
	}
	for _, tt := range tests {
		r, _ := http.NewRequest("POST", "/", nil)
		for k, v := range tt.headers {
			r.Header.Set(k, v)
		}
		req := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: tt.method, Params: tt.params}
		p := &post{msgs: []jsonrpc.Message{req}, requests: 1, route: scanParams(tt.method, tt.params)}
		if got := isModern(r, p); got != tt.want {
			t.Errorf("%s: isModern = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestAccepts(t *testing.T) {
	r, _ := http.NewRequest("GET", "/", nil)
	r.Header.Add("Accept", "application/json;q=0.9")
	r.Header.Add("Accept", "Text/Event-Stream")
	if !accepts(r, mediaJSON) || !accepts(r, mediaSSE) {
		t.Error("listed types not accepted")
	}
	r.Header.Set("Accept", "text/*")
	if !accepts(r, mediaSSE) || accepts(r, mediaJSON) {
		t.Error("text/* matches text/event-stream only")
	}
}

func TestEventIDs(t *testing.T) {
	if id := eventID(3, 17); id != "3_17" {
		t.Fatalf("eventID = %q", id)
	}
	if n, i, ok := parseEventID("3_17"); !ok || n != 3 || i != 17 {
		t.Fatalf("parseEventID(3_17) = %d, %d, %v", n, i, ok)
	}
	for _, bad := range []string{"", "3", "a_1", "1_b", "-1_2", "1_-2"} {
		if _, _, ok := parseEventID(bad); ok {
			t.Errorf("parseEventID(%q) succeeded", bad)
		}
	}
}
