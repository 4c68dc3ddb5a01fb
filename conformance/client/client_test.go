package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
)

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// TestToolsCallScenarioInBothEras plays tools_call against a weft server
// over Streamable HTTP, as the suite would, in each era.
func TestToolsCallScenarioInBothEras(t *testing.T) {
	var mu sync.Mutex
	var calls []addArgs
	srv := server.New(mcp.Implementation{Name: "mock", Version: "1"}, &server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	server.AddTool(srv, &mcp.Tool{Name: "add_numbers", Description: "Adds"},
		func(_ context.Context, _ *server.Request, in addArgs) (*mcp.CallToolResult, error) {
			mu.Lock()
			calls = append(calls, in)
			mu.Unlock()
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "ok"}}}, nil
		})
	h := streamable.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Shutdown(context.Background())

	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Setenv("MCP_CONFORMANCE_SCENARIO", "tools_call")
		t.Setenv("MCP_CONFORMANCE_PROTOCOL_VERSION", v)
		if err := run([]string{"--ignored-flag", ts.URL}); err != nil {
			t.Errorf("%s: tools_call: %v", v, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 || calls[0] != (addArgs{2, 3}) || calls[1] != (addArgs{2, 3}) {
		t.Errorf("add_numbers calls = %+v, want {2 3} once per era", calls)
	}
}

func TestRunRejectsWhatItCannotPlay(t *testing.T) {
	for _, c := range []struct {
		scenario, ctx string
		args          []string
		want          string
	}{
		{"tools_call", "", nil, "no server URL"},
		{"", "", []string{"http://127.0.0.1:1/mcp"}, "MCP_CONFORMANCE_SCENARIO is not set"},
		{"no-such-scenario", "", []string{"http://127.0.0.1:1/mcp"}, `scenario "no-such-scenario" is not implemented`},
		{"http-custom-headers", `{"name":"http-custom-headers"}`, []string{"http://127.0.0.1:1/mcp"}, "has no toolCalls"},
	} {
		t.Setenv("MCP_CONFORMANCE_SCENARIO", c.scenario)
		t.Setenv("MCP_CONFORMANCE_CONTEXT", c.ctx)
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("scenario %q args %v: error %v, want one containing %q", c.scenario, c.args, err, c.want)
		}
	}
}

// TestElicitationDefaultsScenarioSendsTheDefaults plays
// elicitation-sep1034-client-defaults against a weft server over
// Streamable HTTP in both eras: the scenario's handler accepts with empty
// content, and the server must receive every field's default.
func TestElicitationDefaultsScenarioSendsTheDefaults(t *testing.T) {
	got := make(chan mcp.JSONObject, 2)
	srv := server.New(mcp.Implementation{Name: "mock", Version: "1"}, &server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	server.AddTool(srv, &mcp.Tool{Name: "test_client_elicitation_defaults", Description: "Elicits a form with defaults"},
		func(ctx context.Context, r *server.Request, _ struct{}) (*mcp.CallToolResult, error) {
			def := func(name, typ, value string) mcp.ElicitProperty {
				return mcp.ElicitProperty{Name: name, Schema: mcp.PrimitiveSchema{Type: typ, Default: []byte(value)}}
			}
			res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "accept with defaults", RequestedSchema: &mcp.ElicitSchema{Type: "object", Properties: mcp.ElicitProperties{
				def("name", "string", `"John Doe"`), def("age", "integer", `30`), def("score", "number", `95.5`),
				def("status", "string", `"active"`), def("verified", "boolean", `true`),
			}}})
			if err != nil {
				return nil, err
			}
			got <- res.Content
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "ok"}}}, nil
		})
	h := streamable.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Shutdown(context.Background())

	want := map[string]string{"name": `"John Doe"`, "age": `30`, "score": `95.5`, "status": `"active"`, "verified": `true`}
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Setenv("MCP_CONFORMANCE_SCENARIO", "elicitation-sep1034-client-defaults")
		t.Setenv("MCP_CONFORMANCE_PROTOCOL_VERSION", v)
		if err := run([]string{ts.URL}); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		content := <-got
		for k, val := range want {
			if string(content[k]) != val {
				t.Errorf("%s: the server got %s = %s, want the default %s", v, k, content[k], val)
			}
		}
	}
}
