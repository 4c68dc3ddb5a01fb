package mcpwire_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/weftmcp/weft/bench/internal/mcpwire"
)

// recordingCaller keeps what it was asked and answers with the echo of
// the text it was sent.
type recordingCaller struct {
	method, name string
	params       json.RawMessage
}

func (c *recordingCaller) CallNamed(_ context.Context, method, name string, params any) (json.RawMessage, error) {
	c.method, c.name = method, name
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	c.params = raw
	var p struct {
		Arguments struct {
			Text string `json:"text"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	text, _ := json.Marshal(p.Arguments.Text)
	return json.RawMessage(`{"content":[{"type":"text","text":` + string(text) + `}]}`), nil
}

// A modern plain call is a tools/call of echo whose _meta names the modern
// version and capabilities that declare no extension, so that a server
// answers it itself rather than with a task.
func TestModernCallsSendPlainModernToolCalls(t *testing.T) {
	c := &recordingCaller{}
	if err := mcpwire.NewModernCalls(c).Echo(context.Background(), "hello"); err != nil {
		t.Fatalf("Echo: %v", err)
	}
	if c.method != "tools/call" || c.name != mcpwire.ToolName {
		t.Errorf("called %s naming %q; want tools/call naming %q", c.method, c.name, mcpwire.ToolName)
	}
	var p struct {
		Name string `json:"name"`
		Meta struct {
			Version string          `json:"io.modelcontextprotocol/protocolVersion"`
			Caps    json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(c.params, &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != mcpwire.ToolName || p.Meta.Version != mcpwire.ModernVersion || string(p.Meta.Caps) != `{}` {
		t.Errorf("params %s; want echo's, with the modern version and capabilities {} in _meta", c.params)
	}
}
