package mcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// Spec example: CallToolRequestParams/tool-call-params-with-progress-token (2026-07-28).
const toolCallParamsWithProgressToken = `{
  "_meta": {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "ExampleClient", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
    "progressToken": "oivaizmir"
  },
  "name": "build_simulation",
  "arguments": {"city": "Micropolis"}
}`

func TestModernRequestMetaAccessors(t *testing.T) {
	p := roundTrip[CallToolParams](t, toolCallParamsWithProgressToken, "")
	v, err := p.Meta.ProtocolVersion()
	if err != nil || v != "2026-07-28" {
		t.Errorf("ProtocolVersion() = %q, %v", v, err)
	}
	caps, err := p.Meta.ClientCapabilities()
	if err != nil {
		t.Errorf("ClientCapabilities(): %v", err)
	}
	if caps.Sampling != nil || caps.Elicitation != nil || caps.Extensions != nil {
		t.Errorf("empty capabilities decoded as %+v", caps)
	}
	info, err := p.Meta.ClientInfo()
	if err != nil || info.Name != "ExampleClient" || info.Version != "1.0.0" {
		t.Errorf("ClientInfo() = %+v, %v", info, err)
	}
	tok, err := p.Meta.ProgressToken()
	if err != nil || tok.Raw() != `"oivaizmir"` {
		t.Errorf("ProgressToken() = %s, %v", tok, err)
	}
	if p.Name != "build_simulation" {
		t.Errorf("name = %q", p.Name)
	}
	assertSameJSON(t, p.Arguments, `{"city":"Micropolis"}`)
}

func TestMetaAbsentVersusMalformed(t *testing.T) {
	m := Meta{
		MetaProtocolVersion:    []byte(`20260728`),
		MetaClientCapabilities: []byte(`null`),
		MetaLogLevel:           []byte(`"verbose"`),
	}
	if _, err := m.ClientInfo(); !errors.Is(err, ErrAbsent) {
		t.Errorf("absent clientInfo: err = %v, want ErrAbsent", err)
	}
	_, err := m.ProtocolVersion()
	if err == nil || errors.Is(err, ErrAbsent) || !strings.Contains(err.Error(), MetaProtocolVersion) {
		t.Errorf("numeric protocolVersion: err = %v, want a malformed error naming the key", err)
	}
	if _, err := m.ClientCapabilities(); err == nil || errors.Is(err, ErrAbsent) {
		t.Errorf("null clientCapabilities: err = %v, want a malformed error", err)
	}
	if _, err := m.LogLevel(); err == nil || errors.Is(err, ErrAbsent) {
		t.Errorf("unknown log level: err = %v, want an error", err)
	}
	var nilMeta Meta
	if _, err := nilMeta.ProtocolVersion(); !errors.Is(err, ErrAbsent) {
		t.Errorf("nil Meta: err = %v, want ErrAbsent", err)
	}
}

func TestMetaSetBuildsRequestMeta(t *testing.T) {
	var m Meta
	if err := m.Set(MetaProtocolVersion, LatestVersion); err != nil {
		t.Fatal(err)
	}
	caps := ClientCapabilities{Extensions: map[string]JSONObject{ExtensionTasks: {}}}
	if err := m.Set(MetaClientCapabilities, caps); err != nil {
		t.Fatal(err)
	}
	if err := m.Set(MetaLogLevel, LevelWarning); err != nil {
		t.Fatal(err)
	}
	p := GetTaskParams{TaskID: "t1"}
	p.Meta = m
	assertSameJSON(t, encode(t, &p), `{"_meta":{
		"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},
		"io.modelcontextprotocol/logLevel":"warning"},"taskId":"t1"}`)
	got, err := m.ClientCapabilities()
	if err != nil || !got.HasExtension(ExtensionTasks) {
		t.Errorf("capabilities read back as %+v, %v", got, err)
	}
	if lvl, err := m.LogLevel(); err != nil || lvl != LevelWarning {
		t.Errorf("LogLevel() = %q, %v", lvl, err)
	}
	if err := m.Set("x", make(chan int)); err == nil {
		t.Error("Set of an unencodable value succeeded")
	}
}

func TestEmptyMetaIsOmitted(t *testing.T) {
	assertSameJSON(t, encode(t, &GetTaskParams{TaskID: "a", RequestParams: RequestParams{Meta: Meta{}}}), `{"taskId":"a"}`)
	assertSameJSON(t, encode(t, &CallToolResult{}), `{"content":[]}`)
}

func TestSubscriptionIDKeepsIDForm(t *testing.T) {
	var n NotificationParams
	if err := json.Unmarshal([]byte(`{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}`), &n); err != nil {
		t.Fatal(err)
	}
	id, err := n.Meta.SubscriptionID()
	if err != nil || id.Raw() != `"listen-1"` {
		t.Errorf("SubscriptionID() = %s, %v", id, err)
	}
	m := Meta{MetaSubscriptionID: []byte(`12`)}
	if id, err := m.SubscriptionID(); err != nil || id.Raw() != `12` {
		t.Errorf("numeric SubscriptionID() = %s, %v", id, err)
	}
}

func TestRelatedTaskAndImmediateResponseMeta(t *testing.T) {
	// 2025-11-25 CreateTaskResult with the model-immediate-response hint.
	r := roundTrip[CreateTaskResult](t, `{"task":{"taskId":"786512e2","status":"working",
		"statusMessage":"The operation is now in progress.","createdAt":"2025-11-25T10:30:00Z",
		"lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":60000,"pollInterval":5000},
		"_meta":{"io.modelcontextprotocol/model-immediate-response":"Started; I'll report back."}}`, "")
	s, err := r.Meta.String(MetaModelImmediateResponse)
	if err != nil || s != "Started; I'll report back." {
		t.Errorf("model-immediate-response = %q, %v", s, err)
	}
	m := Meta{MetaRelatedTask: []byte(`{"taskId":"786512e2"}`), MetaTraceParent: []byte(`"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"`)}
	rt, err := m.RelatedTask()
	if err != nil || rt.TaskID != "786512e2" {
		t.Errorf("RelatedTask() = %+v, %v", rt, err)
	}
	if tp, err := m.String(MetaTraceParent); err != nil || !strings.HasPrefix(tp, "00-0af7") {
		t.Errorf("traceparent = %q, %v", tp, err)
	}
}

func TestServerInfoOnModernResult(t *testing.T) {
	r := roundTrip[Result](t, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ExampleServer","version":"1.0.0"}}}`, "")
	info, err := r.Meta.ServerInfo()
	if err != nil || info.Name != "ExampleServer" {
		t.Errorf("ServerInfo() = %+v, %v", info, err)
	}
}
