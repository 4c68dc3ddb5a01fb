package otel

import (
	"context"
	"errors"
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
			op := &operation{method: r.Method(), version: r.ProtocolVersion(), session: r.SessionID(), tool: r.ToolName(), id: r.ID(),
				unrouted: r.IsNotification()}
			if p, ok := r.DecodedParams().(*mcp.GetPromptParams); ok {
				op.prompt = p.Name
			}
			ctx, opts := i.extract(ctx, r.Meta())
			opts = append(opts, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(op.attributes(true)...))
			start := time.Now()
			ctx, span := i.tracer.Start(ctx, op.spanName(), opts...)
			if r.Method() == mcp.MethodToolsCall && span.SpanContext().IsValid() {
				for k, v := range i.inject(ctx) { // for the task the call may create
					r.SetTaskMeta(k, v)
				}
			}
			answered := false
			defer func() {
				if !answered {
					i.end(ctx, span, i.serverDuration, op, start, handlerPanicked())
				}
			}()
			res, err := next(ctx, r)
			answered = true
			if id := r.RelatedTask(); id != "" {
				i.relateToTask(span, r, id)
			}
			i.end(ctx, span, i.serverDuration, op, start, classify(err, isToolError(res), true))
			return res, err
		}
	}
}

// relateToTask marks the span of a request about a task with the task's ID
// and, unless the request created the task, links it to the span of the
// request that did, the parent of the task's span (see TaskObserver).
func (i *Instrumentation) relateToTask(span trace.Span, r *server.Request, id string) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(attribute.String(AttrTaskID, id))
	if r.Method() == mcp.MethodToolsCall {
		return
	}
	if created := i.taskParent(r.TaskMeta()); created.IsValid() {
		span.AddLink(trace.Link{SpanContext: created})
	}
}

// isToolError reports a tools/call result that is a tool's error.
func isToolError(res server.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	return ok && r.IsError
}

// ServerAskMiddleware returns server ask middleware that gives every
// question the server asks its client (elicitation, sampling, roots) a
// client span, child of the span of the request being served (in a task's
// run, of the request that created the task), and puts its trace context
// in the question's params._meta for the client to continue. A question
// of a modern request is asked in each round: the round that ends in
// input_required is not an error.
func (i *Instrumentation) ServerAskMiddleware() server.AskMiddleware {
	return func(next server.AskHandler) server.AskHandler {
		return func(ctx context.Context, a *server.AskRequest) (jsontext.Value, error) {
			op := &operation{method: a.Method, version: a.Request.ProtocolVersion(), session: a.Request.SessionID()}
			attrs := op.attributes(true)
			task := a.Request.RelatedTask()
			if task != "" {
				attrs = append(attrs, attribute.String(AttrTaskID, task))
				if !trace.SpanContextFromContext(ctx).IsValid() {
					// A task's run has no span of its own: its questions
					// join the trace of the request that created the task.
					ctx = trace.ContextWithRemoteSpanContext(ctx, i.taskParent(a.Request.TaskMeta()))
				}
			}
			start := time.Now()
			ctx, span := i.tracer.Start(ctx, op.spanName(), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
			i.propagate(ctx, span, a)
			answer, err := next(ctx, a)
			if errors.Is(err, server.ErrInputRequired) {
				err = nil // asked in the input_required result; the retry answers
			}
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
