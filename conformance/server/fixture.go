package main

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// fixture is the conformance server: the weft server with every fixture
// registered, served to streamable.Handler through the transport's Server
// interface.
type fixture struct {
	srv *server.Server

	mu sync.Mutex
	// streams are the live legacy session streams by session ID, for
	// test_reconnection, which ends its own SSE stream mid-call.
	streams map[string]requestStreamCloser
	// schemas are the input schemas of the tools whose parameters are
	// mirrored into Mcp-Param-* headers, for the transport to check.
	schemas map[string]stdjson.RawMessage
}

// requestStreamCloser is what a legacy session stream of
// transport/streamable offers beyond jsonrpc.Stream (see streamable.Server).
type requestStreamCloser interface {
	SessionID() string
	CloseRequestStream(id jsonrpc.ID) bool
}

func newFixture(logger *slog.Logger) *fixture {
	f := &fixture{srv: newServer(logger), streams: map[string]requestStreamCloser{}, schemas: map[string]stdjson.RawMessage{}}
	f.addReconnectionTool()
	f.addCustomHeaderTool()
	return f
}

// ConnectStream serves one legacy session, named as the transport names it.
func (f *fixture) ConnectStream(ctx context.Context, stream jsonrpc.Stream) error {
	var opts server.ConnectOptions
	if rc, ok := stream.(requestStreamCloser); ok {
		opts.SessionID = rc.SessionID()
		f.mu.Lock()
		f.streams[opts.SessionID] = rc
		f.mu.Unlock()
	}
	ss, err := f.srv.Connect(ctx, stream, &opts)
	if err != nil {
		return err
	}
	if opts.SessionID != "" {
		go func() {
			ss.Wait()
			f.mu.Lock()
			delete(f.streams, opts.SessionID)
			f.mu.Unlock()
		}()
	}
	return nil
}

// ServeStandalone serves one modern request.
func (f *fixture) ServeStandalone(ctx context.Context, req *jsonrpc.Request, header http.Header, notify func(context.Context, *jsonrpc.Request) error) *jsonrpc.Response {
	return f.srv.ServeRequest(ctx, req, server.RequestInfo{Version: header.Get("MCP-Protocol-Version")}, notify)
}

// toolInputSchema tells the transport the input schema of a tool with
// x-mcp-header parameters.
func (f *fixture) toolInputSchema(_ context.Context, tool string) (stdjson.RawMessage, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.schemas[tool]
	return s, ok
}

// addReconnectionTool registers test_reconnection (server-sse-polling): it
// ends its request's SSE stream after the priming event, waits, and returns;
// the client gets the result by resuming with GET and Last-Event-ID.
func (f *fixture) addReconnectionTool() {
	f.srv.AddRawTool(&mcp.Tool{Name: "test_reconnection", Description: "Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes the stream mid-call and the result arrives after the client reconnects", InputSchema: noArgs},
		func(ctx context.Context, r *server.Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			if ss := r.Session(); ss != nil {
				f.mu.Lock()
				rc := f.streams[ss.ID()]
				f.mu.Unlock()
				if rc == nil || !rc.CloseRequestStream(r.ID()) {
					return nil, fmt.Errorf("this call's SSE stream could not be closed (session %q); call the tool over Streamable HTTP with Accept: text/event-stream", ss.ID())
				}
			}
			if err := sleep(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
		})
}

// customHeaderSchema is the input schema of test_custom_header: its region
// parameter is mirrored into the Mcp-Param-Region header (SEP-2243).
var customHeaderSchema = stdjson.RawMessage(`{"type":"object","properties":{"region":{"type":"string","description":"Deployment region, mirrored into the Mcp-Param-Region header","x-mcp-header":"Region"},"query":{"type":"string","description":"Free text, not mirrored"}},"required":["region"]}`)

// addCustomHeaderTool registers test_custom_header
// (http-custom-header-server-validation).
func (f *fixture) addCustomHeaderTool() {
	f.mu.Lock()
	f.schemas["test_custom_header"] = customHeaderSchema
	f.mu.Unlock()
	f.srv.AddRawTool(&mcp.Tool{Name: "test_custom_header", Description: "Tests SEP-2243 custom headers: the region argument travels in the Mcp-Param-Region header too", InputSchema: customHeaderSchema},
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
