package server

import (
	stdjson "encoding/json"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// decodeRecordedCall reads a task's recorded call as a run reads it.
func decodeRecordedCall(t testing.TB, raw []byte) *taskCall {
	t.Helper()
	if !jsontext.Value(raw).IsValid() {
		t.Fatalf("the recorded call is not valid JSON: %s", raw)
	}
	c := new(taskCall)
	if err := json.Unmarshal(raw, c); err != nil {
		t.Fatalf("the recorded call %s does not decode: %v", raw, err)
	}
	return c
}

// sameRecordedCall fails unless got is the call want records: the same
// members, with params of the same JSON (a run reads them; the hand
// encoding keeps the request's bytes where reflection reformatted them).
func sameRecordedCall(t testing.TB, got, want *taskCall) {
	t.Helper()
	g, w := *got, *want
	for _, p := range []*jsontext.Value{&g.Params, &w.Params} {
		if err := p.Canonicalize(); err != nil {
			t.Fatalf("params %s: %v", *p, err)
		}
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("recorded call decodes as\n%#v\nwant\n%#v", g, w)
	}
}

func TestRecordedCallDecodesAsItsReflectiveEncoding(t *testing.T) {
	caps := mcp.ClientCapabilities{
		Experimental: map[string]mcp.JSONObject{"x.y/z": {"a": stdjson.RawMessage(`[1,2]`)}},
		Roots:        &mcp.RootsCapability{ListChanged: true},
		Sampling:     &mcp.SamplingCapability{Tools: mcp.JSONObject{}},
		Elicitation:  &mcp.ElicitationCapability{Form: mcp.JSONObject{}},
		Extensions:   map[string]mcp.JSONObject{mcp.ExtensionTasks: {}},
	}
	client := mcp.Implementation{Name: "c\u00e9", Title: "C \"quoted\"", Version: "1", Icons: []mcp.Icon{{Src: "data:,x"}}}
	sessionPeer, err := encodePeer(caps, client)
	if err != nil {
		t.Fatal(err)
	}
	meta := mcp.Meta{
		mcp.MetaClientCapabilities: stdjson.RawMessage(`{ "extensions": {"io.modelcontextprotocol/tasks": {}}, "unknown": 7 }`),
		mcp.MetaClientInfo:         stdjson.RawMessage(`{"name": "m", "version": "2", "extra": true}`),
	}
	modernCaps, err := meta.ClientCapabilities()
	if err != nil {
		t.Fatal(err)
	}
	modernClient, err := meta.ClientInfo()
	if err != nil {
		t.Fatal(err)
	}
	withoutInfo := mcp.Meta{mcp.MetaClientCapabilities: meta[mcp.MetaClientCapabilities]}
	params := jsontext.Value("{\"name\": \"echo\",\n \"arguments\": {\"text\": \"h\\u00e9\"}}")
	for _, tc := range []struct {
		name string
		call taskCall
		peer *recordedPeer
	}{
		{"legacy session", taskCall{Version: mcp.Version20251125, RequestID: jsonrpc.Int64ID(7), Params: params,
			Capabilities: caps, Client: client, Session: "s\u00e9ssion"}, sessionPeer},
		{"modern", taskCall{Version: mcp.Version20260728, RequestID: jsonrpc.StringID("id \"\u2028\""), Params: params,
			Capabilities: modernCaps, Client: modernClient}, modernPeer(meta)},
		{"modern without client info", taskCall{Version: mcp.Version20260728, RequestID: jsonrpc.Int64ID(0), Params: params,
			Capabilities: modernCaps}, modernPeer(withoutInfo)},
		{"no peer known", taskCall{Version: mcp.Version20250618, RequestID: jsonrpc.Int64ID(-3), Params: jsontext.Value(`{}`),
			Capabilities: caps, Client: client}, nil},
		{"no request ID", taskCall{Version: mcp.Version20251125, Params: params, Capabilities: caps}, nil},
		{"answers", taskCall{Version: mcp.Version20260728, RequestID: jsonrpc.Int64ID(1), Params: params, Capabilities: modernCaps,
			Answers: map[string]recordedAnswer{"q": {}}}, modernPeer(meta)},
		{"adopted", taskCall{Version: mcp.Version20251125, RequestID: jsonrpc.Int64ID(1), Params: params, Capabilities: caps,
			Client: client, Adopt: "p1"}, sessionPeer},
		{"middleware meta", taskCall{Version: mcp.Version20251125, RequestID: jsonrpc.Int64ID(1), Params: params,
			Capabilities: caps, Client: client, Meta: map[string]string{"k": "v"}}, sessionPeer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.call.encode(tc.peer)
			if err != nil {
				t.Fatal(err)
			}
			reflective, err := json.Marshal(&tc.call)
			if err != nil {
				t.Fatal(err)
			}
			sameRecordedCall(t, decodeRecordedCall(t, got), decodeRecordedCall(t, reflective))
		})
	}
}

func TestRecordedCallRefusesTextThatIsNotUTF8(t *testing.T) {
	for _, c := range []taskCall{
		{Version: "2025-11-25\xff", Params: jsontext.Value(`{}`)},
		{Version: mcp.Version20251125, Params: jsontext.Value(`{}`), Session: "\xfe"},
	} {
		if raw, err := c.encode(nil); err == nil {
			t.Errorf("encode(%+v) = %s, want an error", c, raw)
		}
	}
}

func TestLegacySessionEncodesItsPeerOnce(t *testing.T) {
	ss := &Session{caps: mcp.ClientCapabilities{Roots: &mcp.RootsCapability{}}, client: mcp.Implementation{Name: "c", Version: "1"}}
	first, err := ss.recordedPeer()
	if err != nil {
		t.Fatal(err)
	}
	second, _ := ss.recordedPeer()
	if first != second {
		t.Error("a second task of the session encoded its client again")
	}
	if string(first.caps) != `{"roots":{}}` || string(first.client) != `{"name":"c","version":"1"}` {
		t.Errorf("peer = %s, %s", first.caps, first.client)
	}
}

// FuzzRecordedCall holds the hand encoding of a modern task's recorded call
// to decode as the values the request was served with: the capabilities
// and client info its _meta declared, its ID, version and params. Those
// values are the oracle, not the reflective encoding: reflection omits an
// empty map or list the client sent, which then decodes as nil, where the
// hand encoding keeps the client's bytes and so its empty collections.
func FuzzRecordedCall(f *testing.F) {
	f.Add(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, `{"name":"c","version":"1"}`, `"a"`, mcp.Version20260728, `{"name":"echo"}`)
	f.Add(`{"roots":{"listChanged":true},"sampling":{}}`, ``, `12`, "x\u2028", `{ "a" : [1, 2.5e3] }`)
	f.Add(`{}`, `{"name":"c","version":"1","icons":[{"src":"s","sizes":["any"]}]}`, `null`, "", `{}`)
	f.Add(`{"experimental":{},"extensions":{}}`, `{"name":"","version":"","icons":[]}`, `0`, "0", `{}`)
	f.Fuzz(func(t *testing.T, caps, info, id, version, params string) {
		m := mcp.Meta{mcp.MetaClientCapabilities: stdjson.RawMessage(caps)}
		if info != "" {
			m[mcp.MetaClientInfo] = stdjson.RawMessage(info)
		}
		if !jsontext.Value(caps).IsValid() || (info != "" && !jsontext.Value(info).IsValid()) ||
			!jsontext.Value(params).IsValid() || jsontext.Value(params).Kind() != '{' {
			return // the JSON-RPC decoder lets no such request through
		}
		declared, err := m.ClientCapabilities()
		if err != nil {
			return // setModern refuses the request
		}
		var client mcp.Implementation
		if info != "" {
			if client, err = m.ClientInfo(); err != nil {
				return
			}
		}
		var reqID jsonrpc.ID
		if err := json.Unmarshal([]byte(id), &reqID); err != nil {
			return
		}
		call := taskCall{Version: version, RequestID: reqID, Params: jsontext.Value(params), Capabilities: declared, Client: client}
		got, err := call.encode(modernPeer(m))
		_, rerr := json.Marshal(&call)
		if (err != nil) != (rerr != nil) {
			t.Fatalf("hand encoding error %v, reflective encoding error %v", err, rerr)
		}
		if err != nil {
			return
		}
		sameRecordedCall(t, decodeRecordedCall(t, got), &call)
	})
}

// BenchmarkEncodeTaskCall is a task's recorded call for an extension
// task, encoded by hand from its _meta and by reflection.
func BenchmarkEncodeTaskCall(b *testing.B) {
	m := mcp.Meta{
		mcp.MetaClientCapabilities: stdjson.RawMessage(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`),
		mcp.MetaClientInfo:         stdjson.RawMessage(`{"name":"weft-bench","version":"1.0.0"}`),
	}
	caps, _ := m.ClientCapabilities()
	client, _ := m.ClientInfo()
	call := &taskCall{Version: mcp.Version20260728, RequestID: jsonrpc.Int64ID(42),
		Params: jsontext.Value(`{"name":"echo","arguments":{"text":"hello"},"task":{}}`), Capabilities: caps, Client: client}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := call.encode(modernPeer(m)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reflection", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(call); err != nil {
				b.Fatal(err)
			}
		}
	})
}
