package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// reverseParams and reverseResult are the params and result of a custom
// method, as an extension defines them.
type reverseParams struct {
	mcp.RequestParams
	Text string `json:"text"`
}

type reverseResult struct {
	mcp.Result
	Reversed string `json:"reversed"`
	Caller   string `json:"caller"`
}

// badReverseParams give text the wrong type.
type badReverseParams struct {
	mcp.RequestParams
	Text int `json:"text"`
}

const methodReverse = "com.example/reverse"

// newReverseServer returns a server with the custom method
// com.example/reverse.
func newReverseServer(opts *server.Options) *server.Server {
	s := server.New(mcp.Implementation{Name: "ext", Version: "1"}, opts)
	server.AddMethod(s, methodReverse, func(_ context.Context, r *server.Request, p *reverseParams) (*reverseResult, error) {
		if p.Text == "" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "text is empty: give something to reverse")
		}
		rs := []rune(p.Text)
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return &reverseResult{Reversed: string(rs), Caller: r.ProtocolVersion()}, nil
	})
	return s
}

func TestAddMethod_ServesACustomMethodInEveryEra(t *testing.T) {
	forTransportsAndEras(t, hookEras, func(t *testing.T, tr, v string) {
		ch := make(chan seen, 64)
		s := newReverseServer(&server.Options{Logger: quiet, Middleware: []server.Middleware{recorder(ch)}})
		cs := dialOver(t, tr, s, v, nil)
		ctx := testCtx(t)
		res, err := client.Call[reverseResult](ctx, cs, methodReverse, &reverseParams{Text: "weft"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Reversed != "tfew" || res.Caller != v {
			t.Errorf("got %+v; want tfew, served at %s", res, v)
		}
		if mcp.IsModern(v) && res.ResultType != mcp.ResultComplete {
			t.Errorf("a modern custom result has resultType %q; want complete", res.ResultType)
		}
		await(t, ch, "the custom method in the middleware", func(m seen) bool { return m.method == methodReverse && m.err == nil })
	})
}

func TestAddMethod_BadParamsAre32602AndUnknownMethods32601(t *testing.T) {
	forTransportsAndEras(t, hookEras, func(t *testing.T, tr, v string) {
		s := newReverseServer(&server.Options{Logger: quiet})
		cs := dialOver(t, tr, s, v, nil)
		ctx := testCtx(t)
		_, err := client.Call[reverseResult](ctx, cs, methodReverse, &badReverseParams{Text: 7})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, methodReverse) {
			t.Errorf("params that do not decode: %v; want -32602 naming %s", err, methodReverse)
		}
		_, err = client.Call[reverseResult](ctx, cs, methodReverse, &reverseParams{})
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "text is empty") {
			t.Errorf("the handler's own error: %v; want its -32602 as it is", err)
		}
		_, err = client.Call[reverseResult](ctx, cs, "com.example/missing", &reverseParams{Text: "x"})
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("a method never added: %v; want -32601", err)
		}
		if _, err := client.Call[reverseResult](ctx, cs, methodReverse, &reverseParams{Text: "ok"}); err != nil {
			t.Errorf("a good call after the bad ones: %v; the connection should serve on", err)
		}
	})
}

func TestAddMethod_RefusesToReplaceAProtocolMethod(t *testing.T) {
	for _, method := range []string{
		mcp.MethodToolsCall, mcp.MethodInitialize, mcp.MethodTasksUpdate, mcp.MethodSamplingCreateMessage,
		mcp.NotificationInitialized, "notifications/com.example/x", "rpc.discover", "",
	} {
		t.Run(method, func(t *testing.T) {
			s := server.New(mcp.Implementation{Name: "ext", Version: "1"}, nil)
			defer func() {
				p := recover()
				if p == nil {
					t.Fatalf("AddMethod(%q) did not panic", method)
				}
				if msg := fmt.Sprint(p); !strings.HasPrefix(msg, "server: AddMethod: ") {
					t.Errorf("AddMethod(%q) panicked with %q; want a message saying why", method, msg)
				}
			}()
			server.AddMethod(s, method, func(context.Context, *server.Request, *reverseParams) (*reverseResult, error) {
				return &reverseResult{}, nil
			})
		})
	}
}

func TestAddMethod_AModernAnswerLeavesTheHandlersValueAlone(t *testing.T) {
	// A handler may answer every request with one value; stamping it for a
	// modern request must not change what a legacy request gets later.
	shared := &reverseResult{Reversed: "tfew"}
	s := server.New(mcp.Implementation{Name: "ext", Version: "1"}, &server.Options{Logger: quiet})
	server.AddMethod(s, methodReverse, func(context.Context, *server.Request, *reverseParams) (*reverseResult, error) {
		return shared, nil
	})
	params := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"text":"weft"}`
	resp := s.ServeRequest(testCtx(t), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: methodReverse, Params: []byte(params)}, transport.RequestInfo{}, nil)
	if resp.Error != nil || !strings.Contains(string(resp.Result), `"resultType":"complete"`) {
		t.Fatalf("modern answer: %s %v", resp.Result, resp.Error)
	}
	if shared.ResultType != "" || shared.Meta != nil {
		t.Errorf("the handler's value was changed to resultType %q, _meta %v", shared.ResultType, shared.Meta)
	}
	cs := dialOver(t, "pipe", s, mcp.Version20251125, nil)
	res, err := client.Call[reverseResult](testCtx(t), cs, methodReverse, &reverseParams{Text: "weft"})
	if err != nil || res.ResultType != "" || res.Meta != nil {
		t.Errorf("legacy answer after a modern one: %+v %v; want no resultType or _meta", res, err)
	}
}
