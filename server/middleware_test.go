package server_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// seen is what a server middleware saw of one message.
type seen struct {
	method, session, version, tool, principal string
	notification, idValid                     bool
	err                                       error
	res                                       server.Result
}

// recorder is a server middleware that reports every message it sees on ch.
func recorder(ch chan<- seen) server.Middleware {
	return func(next server.MethodHandler) server.MethodHandler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			res, err := next(ctx, r)
			ch <- seen{method: r.Method(), session: r.SessionID(), version: r.ProtocolVersion(), tool: r.ToolName(),
				principal: r.Principal(), notification: r.IsNotification(), idValid: r.ID().IsValid(), err: err, res: res}
			return res, err
		}
	}
}

func TestMiddleware_SeesEveryRequestWithItsCallerAndOutcome(t *testing.T) {
	forTransportsAndEras(t, hookEras, func(t *testing.T, tr, v string) {
		ch := make(chan seen, 64)
		s := server.New(mcp.Implementation{Name: "mw", Version: "1"}, &server.Options{Logger: quiet, Middleware: []server.Middleware{recorder(ch)}})
		addEcho(s)
		cs := dialOver(t, tr, s, v, nil)
		ctx := testCtx(t)
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"hi"}`)}); err != nil {
			t.Fatal(err)
		}
		var backlog []seen
		call := awaitFrom(t, ch, &backlog, "tools/call", func(m seen) bool { return m.method == mcp.MethodToolsCall })
		if call.tool != "echo" || call.version != v || !call.idValid || call.notification || call.err != nil {
			t.Errorf("tools/call seen as %+v; want tool echo, version %s, a valid id, no error", call, v)
		}
		res, ok := call.res.(*mcp.CallToolResult)
		if !ok || res.IsError || len(res.Content) != 1 {
			t.Errorf("the middleware saw the result %#v; want the echo tool's result", call.res)
		}
		if mcp.IsModern(v) {
			if call.session != "" {
				t.Errorf("a modern request has session ID %q; want none", call.session)
			}
			return
		}
		if call.session == "" || call.principal != call.session {
			t.Errorf("a legacy request has session %q, principal %q; want the session's ID for both (no authentication)", call.session, call.principal)
		}
		init := awaitFrom(t, ch, &backlog, "notifications/initialized", func(m seen) bool { return m.method == mcp.NotificationInitialized })
		if !init.notification || init.idValid || init.session != call.session || init.version != v {
			t.Errorf("notifications/initialized seen as %+v; want a notification of session %s at %s", init, call.session, v)
		}
	})
}

func TestMiddleware_AnErrorAnswersInsteadOfTheHandler(t *testing.T) {
	forTransportsAndEras(t, hookEras, func(t *testing.T, tr, v string) {
		var ran atomic.Int32
		deny := func(next server.MethodHandler) server.MethodHandler {
			return func(ctx context.Context, r *server.Request) (server.Result, error) {
				if r.ToolName() == "guarded" {
					return nil, jsonrpc.NewError(-32001, "denied by policy: %s may not call %s", r.Principal(), r.ToolName())
				}
				return next(ctx, r)
			}
		}
		s := server.New(mcp.Implementation{Name: "mw", Version: "1"}, &server.Options{Logger: quiet, Middleware: []server.Middleware{deny}})
		server.AddTool(s, &mcp.Tool{Name: "guarded", Description: "Guarded."}, func(context.Context, *server.Request, echoArgs) (string, error) {
			ran.Add(1)
			return "ran", nil
		})
		addEcho(s)
		cs := dialOver(t, tr, s, v, nil)
		ctx := testCtx(t)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "guarded", Arguments: []byte(`{"text":"x"}`)})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != -32001 {
			t.Fatalf("calling the guarded tool: %v; want the middleware's error -32001", err)
		}
		if ran.Load() != 0 {
			t.Error("the guarded tool ran although the middleware answered")
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"x"}`)}); err != nil {
			t.Errorf("another tool after the refusal: %v; the connection should serve on", err)
		}
	})
}

func TestMiddleware_RunsInOrderFirstOutermost(t *testing.T) {
	order := make(chan string, 8)
	mark := func(name string) server.Middleware {
		return func(next server.MethodHandler) server.MethodHandler {
			return func(ctx context.Context, r *server.Request) (server.Result, error) {
				if r.Method() == mcp.MethodToolsCall {
					order <- name + " in"
				}
				res, err := next(ctx, r)
				if r.Method() == mcp.MethodToolsCall {
					order <- name + " out"
				}
				return res, err
			}
		}
	}
	s := server.New(mcp.Implementation{Name: "mw", Version: "1"}, &server.Options{Logger: quiet, Middleware: []server.Middleware{mark("a"), mark("b")}})
	addEcho(s)
	cs := dialOver(t, "pipe", s, mcp.Version20260728, nil)
	if _, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 4 {
		got = append(got, <-order)
	}
	want := []string{"a in", "b in", "b out", "a out"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("middleware ran as %v; want %v", got, want)
		}
	}
}

func TestMiddleware_ClientMetaReachesTheServer(t *testing.T) {
	forTransportsAndEras(t, hookEras, func(t *testing.T, tr, v string) {
		const key = "com.example/trace"
		s := server.New(mcp.Implementation{Name: "mw", Version: "1"}, &server.Options{Logger: quiet})
		server.AddTool(s, &mcp.Tool{Name: "trace", Description: "Returns the trace in _meta."}, func(_ context.Context, r *server.Request, _ struct{}) (string, error) {
			var trace string
			if err := r.Meta().Decode(key, &trace); err != nil {
				return "", err
			}
			return trace, nil
		})
		tag := func(next client.MethodHandler) client.MethodHandler {
			return func(ctx context.Context, r *client.Request) (stdRaw, error) {
				if !r.IsNotification() {
					if err := r.SetMeta(key, "trace-"+r.Method()); err != nil {
						return nil, err
					}
				}
				return next(ctx, r)
			}
		}
		cs := dialOver(t, tr, s, v, &client.Options{Middleware: []client.Middleware{tag}})
		got, err := client.CallTool[string](testCtx(t), cs, "trace", struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		if got != "trace-tools/call" {
			t.Errorf("the tool read _meta[%q] = %q; want the value the client's middleware set", key, got)
		}
	})
}
