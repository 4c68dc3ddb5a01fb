package streamable

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// fixture is a small MCP server for transport tests, built on a real
// jsonrpc.Conn for legacy sessions. Its tools are named after what they
// exercise:
//
//	echo       returns its arguments' "text"
//	progress   sends notifications/progress, then returns
//	ask        asks the client (sampling/createMessage), returns the answer
//	block      waits until its context ends or the test releases it
//	reconnect  closes its own SSE stream, then notifies and returns
//	panic      panics (modern only)
//
// A legacy broadcast (fixture.broadcast) sends a notification outside any
// request, which goes to the GET stream. The modern side also serves
// server/discover and subscriptions/listen.
type fixture struct {
	t *testing.T

	mu      sync.Mutex
	conns   []*jsonrpc.Conn
	infos   []transport.SessionInfo // what ConnectSession was told, per session
	release chan struct{}           // closed to end the block tool
	started chan string             // receives the method of each block call as it starts
	ended   chan error              // receives the context cause of each block call as it ends
	listen  chan *jsonrpc.Request   // notifications for the open listen stream
	headers chan http.Header        // the headers of each modern request, when non-nil
}

func newFixture(t *testing.T) *fixture {
	return &fixture{
		t:       t,
		release: make(chan struct{}),
		started: make(chan string, 16),
		ended:   make(chan error, 16),
		listen:  make(chan *jsonrpc.Request, 16),
	}
}

// ConnectSession serves a legacy session with a jsonrpc.Conn.
func (f *fixture) ConnectSession(ctx context.Context, stream jsonrpc.Stream, info transport.SessionInfo) error {
	ready := make(chan *jsonrpc.Conn, 1)
	self := sync.OnceValue(func() *jsonrpc.Conn { return <-ready }) // the Conn, once NewConn returned
	exchanges := stream.(transport.Exchanges)
	conn := jsonrpc.NewConn(stream, jsonrpc.ConnOptions{
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return f.legacy(ctx, self(), exchanges.Exchange(req.ID), req)
		}),
	})
	ready <- conn
	f.mu.Lock()
	f.conns = append(f.conns, conn)
	f.infos = append(f.infos, info)
	f.mu.Unlock()
	context.AfterFunc(ctx, func() { conn.Close() })
	return nil
}

// legacy serves one request of a legacy session, which arrived in ex.
func (f *fixture) legacy(ctx context.Context, conn *jsonrpc.Conn, ex transport.Exchange, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case mcp.MethodInitialize:
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "%v", err)
		}
		if p.ProtocolVersion == "refuse" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "refused")
		}
		return map[string]any{"protocolVersion": mcp.Negotiate(p.ProtocolVersion), "capabilities": map[string]any{},
			"serverInfo": map[string]any{"name": "fixture", "version": "1"}}, nil
	case "notifications/initialized":
		return nil, nil
	case "notifications/cancelled":
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if err := json.Unmarshal(req.Params, &p); err == nil {
			conn.CancelInbound(p.RequestID)
		}
		return nil, nil
	case mcp.MethodToolsCall:
		name, text := toolCall(req.Params)
		return f.tool(ctx, name, text, func(method string, params any) error {
			return conn.Notify(ctx, method, params)
		}, func(method string, params any) (stdjson.RawMessage, error) {
			var out stdjson.RawMessage
			err := conn.Call(ctx, method, params, &out)
			return out, err
		}, func() {
			if ex == nil || !ex.CloseStream() {
				f.t.Errorf("the exchange of request %s has no connected stream to close", req.ID)
			}
		})
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method %q not found", req.Method)
}

// broadcast sends a notification from the newest legacy session outside
// any request.
func (f *fixture) broadcast(method string) {
	f.mu.Lock()
	conn := f.conns[len(f.conns)-1]
	f.mu.Unlock()
	if err := conn.Notify(context.Background(), method, map[string]any{}); err != nil {
		f.t.Errorf("broadcast: %v", err)
	}
}

// tool runs a fixture tool.
func (f *fixture) tool(ctx context.Context, name, text string, notify func(string, any) error,
	call func(string, any) (stdjson.RawMessage, error), closeStream func()) (any, error) {
	switch name {
	case "echo":
		return textResult(text), nil
	case "progress":
		for i := 1; i <= 2; i++ {
			if err := notify("notifications/progress", map[string]any{"progressToken": "p", "progress": i}); err != nil {
				return nil, err
			}
		}
		return textResult("done"), nil
	case "ask":
		out, err := call("sampling/createMessage", map[string]any{"messages": []any{}})
		if err != nil {
			return nil, err
		}
		return textResult(string(out)), nil
	case "block":
		f.started <- name
		select {
		case <-ctx.Done():
			f.ended <- context.Cause(ctx)
			return nil, ctx.Err()
		case <-f.release:
			f.ended <- nil
			return textResult("released"), nil
		}
	case "reconnect":
		closeStream()
		if err := notify("notifications/progress", map[string]any{"progressToken": "r", "progress": 1}); err != nil {
			return nil, err
		}
		return textResult("after reconnect"), nil
	case "panic":
		panic("the panic tool panicked")
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown tool %q", name)
}

// ServeRequest serves one modern request.
func (f *fixture) ServeRequest(ctx context.Context, req *jsonrpc.Request, _ transport.RequestInfo,
	notify func(context.Context, *jsonrpc.Request) error) *jsonrpc.Response {
	result, err := f.modern(ctx, req, notify)
	if req.IsNotification() {
		return nil
	}
	if err != nil {
		var jerr *jsonrpc.Error
		if !errors.As(err, &jerr) {
			jerr = jsonrpc.NewError(jsonrpc.CodeInternalError, "%v", err)
		}
		return &jsonrpc.Response{ID: req.ID, Error: jerr}
	}
	raw, merr := json.Marshal(result)
	if merr != nil {
		return &jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "%v", merr)}
	}
	return &jsonrpc.Response{ID: req.ID, Result: raw}
}

// modern serves a modern request the way a modern server would.
func (f *fixture) modern(ctx context.Context, req *jsonrpc.Request, notify func(context.Context, *jsonrpc.Request) error) (any, error) {
	var p struct {
		Meta map[string]stdjson.RawMessage `json:"_meta"`
	}
	json.Unmarshal(req.Params, &p)
	var version string
	if raw, ok := p.Meta[mcp.MetaProtocolVersion]; !ok {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "params._meta[%q] is missing", mcp.MetaProtocolVersion)
	} else if err := json.Unmarshal(raw, &version); err != nil || version != mcp.Version20260728 {
		return nil, mcp.UnsupportedVersionError(version, []string{mcp.Version20260728})
	}
	send := func(method string, params any) error {
		raw, err := json.Marshal(params)
		if err != nil {
			return err
		}
		return notify(ctx, &jsonrpc.Request{Method: method, Params: raw})
	}
	switch req.Method {
	case mcp.MethodServerDiscover:
		return map[string]any{"supportedVersions": []string{mcp.Version20260728}, "capabilities": map[string]any{}, "resultType": "complete"}, nil
	case mcp.MethodToolsList:
		return map[string]any{"tools": []any{
			map[string]any{"name": "region", "inputSchema": jsontext.Value(regionSchema)},
			map[string]any{"name": "broken", "inputSchema": jsontext.Value(`{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`)},
		}, "resultType": "complete"}, nil
	case mcp.MethodToolsCall:
		name, text := toolCall(req.Params)
		if name == "region" {
			var p struct {
				Arguments stdjson.RawMessage `json:"arguments"`
			}
			json.Unmarshal(req.Params, &p)
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": string(p.Arguments)}}, "resultType": "complete"}, nil
		}
		if name == "needs-sampling" {
			return nil, mcp.MissingCapabilityError(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}})
		}
		return f.tool(ctx, name, text, send, nil, nil)
	case mcp.MethodSubscriptionsListen:
		if err := send("notifications/subscriptions/acknowledged", map[string]any{}); err != nil {
			return nil, err
		}
		for {
			select {
			case n := <-f.listen:
				if err := notify(ctx, n); err != nil {
					return nil, err
				}
			case <-ctx.Done():
				f.ended <- context.Cause(ctx)
				return nil, ctx.Err()
			}
		}
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method %q not found", req.Method)
}

// regionSchema is the inputSchema of the fixture's "region" tool, whose
// arguments region, count and opts.flag are mirrored into headers.
const regionSchema = `{"type":"object","properties":{
	"region":{"type":"string","x-mcp-header":"Region"},
	"count":{"type":"integer","x-mcp-header":"Count"},
	"opts":{"type":"object","properties":{"flag":{"type":"boolean","x-mcp-header":"Flag"}}},
	"query":{"type":"string"}}}`

// toolSchema is a HandlerOptions.ToolInputSchema for the fixture.
func toolSchema(_ context.Context, tool string) (stdjson.RawMessage, bool) {
	if tool == "region" {
		return stdjson.RawMessage(regionSchema), true
	}
	return nil, false
}

// toolCall reads the name and arguments.text of tools/call params.
func toolCall(params []byte) (name, text string) {
	var p struct {
		Name      string `json:"name"`
		Arguments struct {
			Text string `json:"text"`
		} `json:"arguments"`
	}
	json.Unmarshal(params, &p)
	return p.Name, p.Arguments.Text
}

func textResult(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

// recordHeaders passes requests to next, first sending the headers of each
// modern POST (one with Mcp-Method) to f.headers when it is set.
func (f *fixture) recordHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.headers != nil && r.Method == http.MethodPost && r.Header.Get(headerMethod) != "" {
			f.headers <- r.Header.Clone()
		}
		next.ServeHTTP(w, r)
	})
}

// serve starts a Handler for srv on a loopback listener and returns it
// with the endpoint URL. A fixture sees the headers of modern requests
// (fixture.headers).
func serve(t *testing.T, srv Server, opts *HandlerOptions) (*Handler, string) {
	t.Helper()
	return serveBehind(t, srv, opts, nil)
}

// serveBehind is serve with wrap, when not nil, in front of the Handler.
func serveBehind(t *testing.T, srv Server, opts *HandlerOptions, wrap func(http.Handler) http.Handler) (*Handler, string) {
	t.Helper()
	h := NewHandler(srv, opts)
	var hh http.Handler = h
	if f, ok := srv.(*fixture); ok {
		hh = f.recordHeaders(h)
	}
	if wrap != nil {
		hh = wrap(hh)
	}
	ts := httptest.NewServer(hh)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.Close()
	})
	return h, ts.URL + "/mcp"
}
