package otel

import (
	"context"
	stdjson "encoding/json"
	"time"

	"github.com/go-json-experiment/json"
	"go.opentelemetry.io/otel/trace"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// ClientMiddleware returns client middleware that gives every request and
// notification the client sends a client span, child of the span in ctx,
// puts its trace context in the message's params._meta for the server to
// continue, and records its duration in mcp.client.operation.duration.
func (i *Instrumentation) ClientMiddleware() client.Middleware {
	return func(next client.MethodHandler) client.MethodHandler {
		return func(ctx context.Context, r *client.Request) (stdjson.RawMessage, error) {
			op := &operation{method: r.Method(), version: r.ProtocolVersion(), tool: r.ToolName()}
			if p, ok := r.Params().(*mcp.GetPromptParams); ok {
				op.prompt = p.Name
			}
			start := time.Now()
			ctx, span := i.tracer.Start(ctx, op.spanName(), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(op.attributes(true)...))
			i.propagate(ctx, span, r)
			raw, err := next(ctx, r)
			op.id = r.ID()
			i.end(ctx, span, i.clientDuration, op, start, classify(err, op.tool != "" && rawToolError(raw), false))
			return raw, err
		}
	}
}

// rawToolError reports a raw tools/call result that is a tool's error.
func rawToolError(raw stdjson.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return len(raw) > 0 && json.Unmarshal(raw, &r) == nil && r.IsError
}

// ClientServeMiddleware returns client serve middleware that gives every
// request and notification the server sends the client (an elicitation,
// say) a server span, the child of the trace context in its params._meta,
// and records its duration in mcp.server.operation.duration: the client
// is the receiver.
func (i *Instrumentation) ClientServeMiddleware() client.ServeMiddleware {
	return func(next client.ServeHandler) client.ServeHandler {
		return func(ctx context.Context, s *client.Session, req *jsonrpc.Request) (any, error) {
			op := &operation{method: req.Method, version: s.ProtocolVersion(), id: req.ID, unrouted: true}
			var p mcp.RequestParams
			var opts []trace.SpanStartOption
			if len(req.Params) > 0 && json.Unmarshal(req.Params, &p) == nil {
				ctx, opts = i.extract(ctx, p.Meta)
			}
			opts = append(opts, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(op.attributes(true)...))
			start := time.Now()
			ctx, span := i.tracer.Start(ctx, op.spanName(), opts...)
			answered := false
			defer func() {
				if !answered {
					i.end(ctx, span, i.serverDuration, op, start, handlerPanicked())
				}
			}()
			res, err := next(ctx, s, req)
			answered = true
			i.end(ctx, span, i.serverDuration, op, start, classify(err, false, true))
			return res, err
		}
	}
}
