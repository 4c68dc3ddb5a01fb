package client_test

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
	"github.com/weftmcp/weft/transport/streamable"
)

// sent is what a client middleware saw of one message.
type sent struct {
	method, version, tool string
	notification, idValid bool
	err                   error
}

// sentLog is a client middleware that records every message sent.
type sentLog struct {
	mu   sync.Mutex
	msgs []sent
}

func (l *sentLog) middleware(next client.MethodHandler) client.MethodHandler {
	return func(ctx context.Context, r *client.Request) (stdjson.RawMessage, error) {
		raw, err := next(ctx, r)
		l.mu.Lock()
		l.msgs = append(l.msgs, sent{method: r.Method(), version: r.ProtocolVersion(), tool: r.ToolName(),
			notification: r.IsNotification(), idValid: r.ID().IsValid(), err: err})
		l.mu.Unlock()
		return raw, err
	}
}

func (l *sentLog) methods() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ms []string
	for _, m := range l.msgs {
		ms = append(ms, m.method)
	}
	return ms
}

func (l *sentLog) find(method string) (sent, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.msgs {
		if m.method == method {
			return m, true
		}
	}
	return sent{}, false
}

// errBlocked is what the blocking middleware answers in the server's place.
var errBlocked = errors.New("blocked by the client's policy")

func TestClientMiddleware_SeesEveryMessageSentAndCanAnswerInItsPlace(t *testing.T) {
	for _, tr := range []string{"pipe", "http"} {
		for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
			t.Run(tr+"/"+v, func(t *testing.T) {
				var serverSaw sync.Map // tool names the server was asked to call
				s := server.New(mcp.Implementation{Name: "weather", Version: "1"}, &server.Options{Logger: quiet,
					Middleware: []server.Middleware{func(next server.MethodHandler) server.MethodHandler {
						return func(ctx context.Context, r *server.Request) (server.Result, error) {
							if name := r.ToolName(); name != "" {
								serverSaw.Store(name, true)
							}
							return next(ctx, r)
						}
					}}})
				server.AddTool(s, &mcp.Tool{Name: "forecast", Description: "d"}, func(_ context.Context, _ *server.Request, in forecastIn) (forecast, error) {
					return forecast{City: in.City}, nil
				})
				var log sentLog
				block := func(next client.MethodHandler) client.MethodHandler {
					return func(ctx context.Context, r *client.Request) (stdjson.RawMessage, error) {
						if r.ToolName() == "blocked" {
							return nil, errBlocked
						}
						return next(ctx, r)
					}
				}
				opts := &client.Options{ProtocolVersion: v, Logger: quiet, Middleware: []client.Middleware{log.middleware, block}}
				var cs *client.Session
				if tr == "http" {
					cs, _ = servertest.ConnectHTTP(t, s, opts, &streamable.HandlerOptions{Logger: quiet})
				} else {
					cs, _ = servertest.Connect(t, s, opts)
				}
				ctx := typedCtx(t)
				if _, err := client.CallTool[forecast](ctx, cs, "forecast", forecastIn{City: "Oslo"}); err != nil {
					t.Fatal(err)
				}
				if _, err := client.CallTool[forecast](ctx, cs, "blocked", forecastIn{}); !errors.Is(err, errBlocked) {
					t.Errorf("calling the blocked tool: %v; want the middleware's error", err)
				}
				if _, ok := serverSaw.Load("blocked"); ok {
					t.Error("the server was asked to call the blocked tool")
				}
				handshake := []string{mcp.MethodInitialize, mcp.NotificationInitialized}
				if mcp.IsModern(v) {
					handshake = []string{mcp.MethodServerDiscover}
				}
				if got := log.methods(); !slices.Equal(got[:len(handshake)], handshake) {
					t.Errorf("the middleware saw %v; want the handshake %v first", got, handshake)
				}
				call, _ := log.find(mcp.MethodToolsCall)
				if call.tool != "forecast" || call.version != v || !call.idValid || call.notification || call.err != nil {
					t.Errorf("tools/call seen as %+v; want tool forecast at %s with its ID", call, v)
				}
				if init, ok := log.find(mcp.NotificationInitialized); ok && (!init.notification || init.idValid) {
					t.Errorf("notifications/initialized seen as %+v; want a notification without ID", init)
				}
			})
		}
	}
}
