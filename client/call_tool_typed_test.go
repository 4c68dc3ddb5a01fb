package client_test

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
)

// quiet discards diagnostics.
var quiet = slog.New(slog.DiscardHandler)

// typedCtx bounds a test's calls: generous, since it only matters when
// something is broken.
func typedCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

type forecastIn struct {
	City string `json:"city"`
}

type forecast struct {
	City  string  `json:"city"`
	TempC float64 `json:"tempC"`
}

// forecastServer has a typed tool, a string tool and a failing tool.
func forecastServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "weather", Version: "1"}, &server.Options{Logger: quiet})
	server.AddTool(s, &mcp.Tool{Name: "forecast", Description: "d"}, func(_ context.Context, _ *server.Request, in forecastIn) (forecast, error) {
		return forecast{City: in.City, TempC: 21.5}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "greet", Description: "d"}, func(_ context.Context, _ *server.Request, in forecastIn) (string, error) {
		return "Hello, " + in.City, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "broken", Description: "d"}, func(context.Context, *server.Request, forecastIn) (forecast, error) {
		return forecast{}, errors.New("the weather station is offline")
	})
	return s
}

func TestCallTool_DecodesTheResultInEveryVersion(t *testing.T) {
	s := forecastServer()
	for _, v := range mcp.SupportedVersions() {
		t.Run(v, func(t *testing.T) {
			cs, _ := servertest.Connect(t, s, &client.Options{ProtocolVersion: v, Logger: quiet})
			ctx := typedCtx(t)
			got, err := client.CallTool[forecast](ctx, cs, "forecast", forecastIn{City: "Oslo"})
			if err != nil {
				t.Fatal(err)
			}
			if got != (forecast{City: "Oslo", TempC: 21.5}) {
				t.Errorf("got %+v; want Oslo at 21.5", got)
			}
			greeting, err := client.CallTool[string](ctx, cs, "greet", &forecastIn{City: "Ada"})
			if err != nil || greeting != "Hello, Ada" {
				t.Errorf("a string result: %q, %v; want Hello, Ada", greeting, err)
			}
		})
	}
}

func TestCallTool_AToolFailureIsAToolErrorWithItsContent(t *testing.T) {
	cs, _ := servertest.Connect(t, forecastServer(), &client.Options{Logger: quiet})
	_, err := client.CallTool[forecast](typedCtx(t), cs, "broken", forecastIn{City: "Oslo"})
	var te *client.ToolError
	if !errors.As(err, &te) {
		t.Fatalf("got %v; want a *client.ToolError", err)
	}
	if te.Tool != "broken" || !te.Result.IsError || len(te.Result.Content) != 1 {
		t.Fatalf("ToolError %+v; want the broken tool's isError result", te)
	}
	if text := te.Result.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "offline") || !strings.Contains(err.Error(), "offline") {
		t.Errorf("the error says %q, its content %q; want the tool's message in both", err, text)
	}
}

func TestCallTool_ArgumentsMustBeAnObject(t *testing.T) {
	var calls atomic.Int32
	count := func(next client.MethodHandler) client.MethodHandler {
		return func(ctx context.Context, r *client.Request) (stdjson.RawMessage, error) {
			if r.Method() == mcp.MethodToolsCall {
				calls.Add(1)
			}
			return next(ctx, r)
		}
	}
	cs, _ := servertest.Connect(t, forecastServer(), &client.Options{Logger: quiet, Middleware: []client.Middleware{count}})
	_, err := client.CallTool[forecast](typedCtx(t), cs, "forecast", []string{"Oslo"})
	if err == nil || !strings.Contains(err.Error(), "must encode as a JSON object") {
		t.Errorf("array arguments: %v; want an error saying they must be an object", err)
	}
	if calls.Load() != 0 {
		t.Error("arguments that are not an object were sent")
	}
}

// plainStatsParams and plainStatsResult are an extension method's params and result,
// as plain types.
type plainStatsParams struct {
	Since string `json:"since"`
}

type plainStatsResult struct {
	Calls int    `json:"calls"`
	Since string `json:"since"`
}

// serverStatsParams and serverStatsResult are the same on the server, which
// embeds the mcp bases.
type serverStatsParams struct {
	mcp.RequestParams
	Since string `json:"since"`
}

type serverStatsResult struct {
	mcp.Result
	Calls int    `json:"calls"`
	Since string `json:"since"`
}

func TestSessionCall_SendsAnyMethodWithPlainTypesInEveryEra(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "stats", Version: "1"}, &server.Options{Logger: quiet})
	server.AddMethod(s, "com.example/stats", func(_ context.Context, r *server.Request, p *serverStatsParams) (*serverStatsResult, error) {
		return &serverStatsResult{Calls: 42, Since: p.Since + "@" + r.ProtocolVersion()}, nil
	})
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			cs, _ := servertest.Connect(t, s, &client.Options{ProtocolVersion: v, Logger: quiet})
			ctx := typedCtx(t)
			var res plainStatsResult
			if err := cs.Call(ctx, "com.example/stats", plainStatsParams{Since: "monday"}, &res); err != nil {
				t.Fatal(err)
			}
			if res != (plainStatsResult{Calls: 42, Since: "monday@" + v}) {
				t.Errorf("got %+v; want 42 calls since monday@%s", res, v)
			}
			var raw stdjson.RawMessage
			if err := cs.Call(ctx, "com.example/stats", nil, &raw); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), `"calls":42`) {
				t.Errorf("the raw result is %s; want calls 42 in it", raw)
			}
			if err := cs.Call(ctx, "com.example/stats", []int{1}, nil); err == nil || !strings.Contains(err.Error(), "must encode as a JSON object") {
				t.Errorf("array params: %v; want an error saying they must be an object", err)
			}
		})
	}
}
