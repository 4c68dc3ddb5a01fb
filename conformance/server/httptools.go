package main

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// addReconnectionTool registers test_reconnection (server-sse-polling): it
// ends its request's SSE stream after the priming event, waits, and returns;
// the client gets the result by resuming with GET and Last-Event-ID.
func addReconnectionTool(s *server.Server) {
	s.AddRawTool(&mcp.Tool{Name: "test_reconnection", Description: "Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes the stream mid-call and the result arrives after the client reconnects", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			if r.Session() != nil && !r.CloseSSEStream() {
				return nil, errors.New("this call's SSE stream could not be closed; call the tool over Streamable HTTP with Accept: text/event-stream")
			}
			if err := sleep(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
		}, server.ClosesSSEStream())
}

// customHeaderSchema is the input schema of test_custom_header: its region
// parameter is mirrored into the Mcp-Param-Region header (SEP-2243), which
// the transport checks against the server's tool registry.
var customHeaderSchema = stdjson.RawMessage(`{"type":"object","properties":{"region":{"type":"string","description":"Deployment region, mirrored into the Mcp-Param-Region header","x-mcp-header":"Region"},"query":{"type":"string","description":"Free text, not mirrored"}},"required":["region"]}`)

// addCustomHeaderTool registers test_custom_header
// (http-custom-header-server-validation).
func addCustomHeaderTool(s *server.Server) {
	s.AddRawTool(&mcp.Tool{Name: "test_custom_header", Description: "Tests SEP-2243 custom headers: the region argument travels in the Mcp-Param-Region header too", InputSchema: customHeaderSchema},
		func(_ context.Context, _ *server.Request, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			if err := stdjson.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return text("region=" + in.Region), nil
		})
}
