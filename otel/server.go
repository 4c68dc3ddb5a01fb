package otel

import (
	"context"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// ServerMiddleware returns server middleware that gives every request and
// notification the server receives a server span, the child of the trace
// context in its params._meta, and records its duration in
// mcp.server.operation.duration. The handler's ctx carries the span, so
// what the handler asks the client (ServerAskMiddleware) joins the trace.
func (i *Instrumentation) ServerMiddleware() server.Middleware {
	return func(next server.MethodHandler) server.MethodHandler {
		return func(ctx context.Context, r *server.Request) (server.Result, error) {
			op := &operation{method: r.Method(), version: r.ProtocolVersion(), session: r.SessionID(), tool: r.ToolName(), id: r.ID()}
			if p, ok := r.DecodedParams().(*mcp.GetPromptParams); ok {
				op.prompt = p.Name
			}
			ctx, opts := i.extract(ctx, r.Meta())
			opts = append(opts, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(op.attributes(true)...))
			start := time.Now()
			ctx, span := i.tracer.Start(ctx, op.spanName(), opts...)
			res, err := next(ctx, r)
			i.end(ctx, span, i.serverDuration, op, start, classify(err, isToolError(res), true))
			return res, err
		}
	}
}

// isToolError reports a tools/call result that is a tool's error.
func isToolError(res server.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	return ok && r.IsError
}

// ServerAskMiddleware returns server ask middleware that gives every
// request the server sends its client (elicitation, sampling, roots) a
// client span, child of the span of the request being served, and puts
// its trace context in the request's params._meta for the client to
// continue.
func (i *Instrumentation) ServerAskMiddleware() server.AskMiddleware {
	return func(next server.AskHandler) server.AskHandler {
		return func(ctx context.Context, a *server.AskRequest) (jsontext.Value, error) {
			op := &operation{method: a.Method, version: a.Request.ProtocolVersion(), session: a.Request.SessionID()}
			start := time.Now()
			ctx, span := i.tracer.Start(ctx, op.spanName(), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(op.attributes(true)...))
			i.propagate(ctx, span, a)
			answer, err := next(ctx, a)
			i.end(ctx, span, i.clientDuration, op, start, classify(err, false, false))
			return answer, err
		}
	}
}

// SessionHooks returns session hooks that record the length of every
// legacy session in mcp.server.session.duration. Set them as
// server.Options.Sessions, or call them from hooks of your own.
func (i *Instrumentation) SessionHooks() server.SessionHooks {
	var starts sync.Map // session ID → start time
	return server.SessionHooks{
		Start: func(_ context.Context, info server.SessionInfo) { starts.Store(info.ID, time.Now()) },
		End: func(info server.SessionInfo) {
			if start, ok := starts.LoadAndDelete(info.ID); ok {
				i.sessionDuration.Record(context.Background(), time.Since(start.(time.Time)).Seconds(),
					metric.WithAttributes(attribute.String(AttrProtocolVersion, info.ProtocolVersion)))
			}
		},
	}
}
