package main

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// serveModern sends one modern request to the fixture server, declaring
// caps, and returns the raw result or the error.
func serveModern(t *testing.T, s *server.Server, caps, method, params string) (stdjson.RawMessage, *jsonrpc.Error) {
	t.Helper()
	meta := fmt.Sprintf(`"_meta":{%q:%q,%q:%s}`, mcp.MetaProtocolVersion, mcp.Version20260728, mcp.MetaClientCapabilities, caps)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp := s.ServeRequest(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: method,
		Params: stdjson.RawMessage("{" + meta + "," + strings.TrimPrefix(params, "{"))}, transport.RequestInfo{}, nil)
	return resp.Result, resp.Error
}

// resultType reads the resultType of a raw result.
func resultType(t *testing.T, raw []byte) string {
	t.Helper()
	var r struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	return r.ResultType
}

func TestTaskFixturesDecideAsTheScenariosExpect(t *testing.T) {
	s := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)))
	const ext = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	for _, tc := range []struct {
		caps, params, want string
	}{
		{ext, `{"name":"greet","arguments":{"name":"x"},"task":{"ttl":60000}}`, "complete"},
		{ext, `{"name":"slow_compute","arguments":{"seconds":0,"label":"now"}}`, "complete"},
		{`{}`, `{"name":"slow_compute","arguments":{"seconds":0,"label":"now"}}`, "complete"},
		{ext, `{"name":"slow_compute","arguments":{"seconds":1,"label":"later"}}`, "task"},
		{ext, `{"name":"failing_job","arguments":{}}`, "task"},
		{ext, `{"name":"protocol_error_job","arguments":{}}`, "task"},
		{ext, `{"name":"confirm_delete","arguments":{"filename":"a.txt"}}`, "task"},
		{ext, `{"name":"multi_input","arguments":{}}`, "task"},
		{ext, `{"name":"test_tool_with_task","arguments":{}}`, "input_required"},
	} {
		raw, err := serveModern(t, s, tc.caps, mcp.MethodToolsCall, tc.params)
		if err != nil {
			t.Errorf("%s: %v", tc.params, err)
			continue
		}
		if got := resultType(t, raw); got != tc.want {
			t.Errorf("%s: resultType %q, want %q (%s)", tc.params, got, tc.want, raw)
		}
	}
	if _, err := serveModern(t, s, `{}`, mcp.MethodToolsCall, `{"name":"failing_job","arguments":{}}`); err == nil || err.Code != mcp.CodeMissingRequiredClientCapability {
		t.Errorf("failing_job without the extension: %v, want -32021", err)
	}
}
