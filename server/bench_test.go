package server

import (
	"context"
	stdjson "encoding/json"
	"log/slog"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// BenchmarkToolsCall measures one tools/call round trip of a typed echo tool
// over transport.Pipe, client Conn included, in each era.
func BenchmarkToolsCall(b *testing.B) {
	benchToolsCall(b, nil)
}

// benchToolsCall measures tools/call of a typed echo tool on a server with
// opts, in each era.
func benchToolsCall(b *testing.B, opts *Options) {
	s := New(mcp.Implementation{Name: "bench", Version: "1"}, opts)
	AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes."}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Text}, nil
	})
	for _, era := range []struct{ name, version string }{{"legacy", mcp.Version20251125}, {"modern", mcp.Version20260728}} {
		b.Run(era.name, func(b *testing.B) {
			c := open(b, s, era.version, `{}`, nil)
			params := stdjson.RawMessage(c.withMeta(`{"name":"echo","arguments":{"text":"hello, world"}}`, ""))
			ctx := context.Background()
			var res stdjson.RawMessage
			b.ReportAllocs()
			for b.Loop() {
				if err := c.conn.Call(ctx, "tools/call", params, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTaskLife measures a task's whole life over transport.Pipe on the
// memory store, client Conn included: create it (tools/call), poll
// tasks/get until it has finished, and fetch the result (legacy
// tasks/result; the extension inlines it in tasks/get). The tool answers
// at once, so this is the cost of the task machinery itself.
func BenchmarkTaskLife(b *testing.B) {
	// Logging off below Warn, as the bench harness serves weft: at Info the
	// runtime's audit events were 7% of a life's allocated bytes.
	quiet := slog.New(slog.DiscardHandler)
	rt := newRuntime(b, tasks.WithLogger(quiet))
	s := New(mcp.Implementation{Name: "bench", Version: "1"}, &Options{Tasks: rt, Logger: quiet})
	AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes."}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Text}, nil
	}, optional)
	for _, era := range []struct{ name, version, caps string }{
		{"legacy", mcp.Version20251125, `{}`},
		{"extension", mcp.Version20260728, extCaps},
	} {
		b.Run(era.name, func(b *testing.B) {
			c := open(b, s, era.version, era.caps, nil)
			go func() { // status notifications: not measured, only drained
				for range c.notes {
				}
			}()
			modern := mcp.IsModern(era.version)
			call := `{"name":"echo","arguments":{"text":"hello, world"}}`
			if !modern {
				call = `{"name":"echo","arguments":{"text":"hello, world"},"task":{}}`
			}
			callParams := stdjson.RawMessage(c.withMeta(call, ""))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				var created struct {
					TaskID string `json:"taskId"`
					Task   struct {
						TaskID string `json:"taskId"`
					} `json:"task"`
				}
				if err := c.conn.Call(ctx, mcp.MethodToolsCall, callParams, &created); err != nil {
					b.Fatal(err)
				}
				id := created.TaskID + created.Task.TaskID
				getParams := stdjson.RawMessage(c.withMeta(`{"taskId":"`+id+`"}`, ""))
				for {
					var got struct {
						Status mcp.TaskStatus `json:"status"`
					}
					if err := c.conn.Call(ctx, mcp.MethodTasksGet, getParams, &got); err != nil {
						b.Fatal(err)
					}
					if got.Status.IsTerminal() {
						break
					}
				}
				if !modern {
					var res stdjson.RawMessage
					if err := c.conn.Call(ctx, mcp.MethodTasksResult, getParams, &res); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}
