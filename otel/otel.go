package otel

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// scope is the instrumentation scope of the tracer and meter.
const scope = "github.com/weftmcp/weft/otel"

// Attribute keys of the semantic conventions for MCP.
const (
	AttrMethodName      = "mcp.method.name"
	AttrSessionID       = "mcp.session.id"
	AttrProtocolVersion = "mcp.protocol.version"
	AttrRequestID       = "jsonrpc.request.id"
	AttrToolName        = "gen_ai.tool.name"
	AttrPromptName      = "gen_ai.prompt.name"
	AttrOperationName   = "gen_ai.operation.name"
	AttrErrorType       = "error.type"
	AttrStatusCode      = "rpc.response.status_code"
	// AttrTaskID and AttrTaskStatus are weft's own (the conventions define
	// no task attributes): a task's ID, and its final status.
	AttrTaskID     = "mcp.task.id"
	AttrTaskStatus = "mcp.task.status"
)

// durationBuckets are the bucket boundaries the conventions give every MCP
// duration histogram, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Options configure an Instrumentation; nil fields take OpenTelemetry's
// global providers and propagator.
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Propagator     propagation.TextMapPropagator
}

// Instrumentation makes the middleware and observers that trace and
// measure weft servers and clients. One serves any number of them.
type Instrumentation struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator

	clientDuration  metric.Float64Histogram
	serverDuration  metric.Float64Histogram
	sessionDuration metric.Float64Histogram
	tasks           *taskMetrics
}

// New returns an Instrumentation; opts may be nil. It fails only when the
// meter provider refuses an instrument.
func New(opts *Options) (*Instrumentation, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = otel.GetTextMapPropagator()
	}
	meter := o.MeterProvider.Meter(scope)
	i := &Instrumentation{tracer: o.TracerProvider.Tracer(scope), propagator: o.Propagator}
	var err error
	histogram := func(name, desc string) metric.Float64Histogram {
		if err != nil {
			return nil
		}
		var h metric.Float64Histogram
		h, err = meter.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		return h
	}
	i.clientDuration = histogram("mcp.client.operation.duration", "The duration of an MCP request or notification as seen from the sender.")
	i.serverDuration = histogram("mcp.server.operation.duration", "The duration of an MCP request or notification as seen from the receiver.")
	i.sessionDuration = histogram("mcp.server.session.duration", "The duration of an MCP session as seen by the server.")
	if err != nil {
		return nil, err
	}
	if i.tasks, err = newTaskMetrics(meter); err != nil {
		return nil, err
	}
	return i, nil
}

// operation is what a span and a duration measurement say about one message.
type operation struct {
	method, version, session string
	tool, prompt             string
	id                       jsonrpc.ID
	// unrouted marks a message the receiver passes to its middleware
	// whatever its method (a notification; anything a server sends a
	// client), so that the method is any string the sender chose.
	unrouted bool
}

// spanName is the conventions' span name: the method, then the tool or
// prompt when there is one.
func (op *operation) spanName() string {
	switch {
	case op.tool != "":
		return op.method + " " + op.tool
	case op.prompt != "":
		return op.method + " " + op.prompt
	}
	return op.method
}

// attributes are the operation's metric attributes; span adds the
// span-only ones (session and request IDs).
func (op *operation) attributes(span bool) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, attribute.String(AttrMethodName, op.method))
	if op.version != "" {
		attrs = append(attrs, attribute.String(AttrProtocolVersion, op.version))
	}
	if op.tool != "" {
		attrs = append(attrs, attribute.String(AttrToolName, op.tool), attribute.String(AttrOperationName, "execute_tool"))
	}
	if op.prompt != "" {
		attrs = append(attrs, attribute.String(AttrPromptName, op.prompt))
	}
	if span && op.session != "" {
		attrs = append(attrs, attribute.String(AttrSessionID, op.session))
	}
	if span && op.id.IsValid() && !op.id.IsNull() {
		attrs = append(attrs, attribute.String(AttrRequestID, op.id.String()))
	}
	return attrs
}

// outcome is how an operation ended, as error.type and the span status say.
type outcome struct {
	errorType string // "" on success
	code      string // the JSON-RPC error code, "" when there is none
	message   string // the status description
	// callerFault marks a request the receiver refused as the caller's
	// fault (see callerFault).
	callerFault bool
}

// otherMethod is the mcp.method.name a metric records for a method the
// protocol does not define, as the RPC conventions record an unknown
// method.
const otherMethod = "_OTHER"

// protocolMethod reports whether the protocol, in some version, or one of
// the extensions weft speaks defines method.
func protocolMethod(method string) bool {
	return mcp.MethodInVersion(method, mcp.LatestLegacyVersion) || mcp.MethodInVersion(method, mcp.LatestVersion) ||
		mcp.IsTasksExtensionMethod(method) || mcp.IsSkillsExtensionMethod(method)
}

// handlerPanicked returns the outcome of a message whose handler panicked:
// the connection recovers and answers a request with -32603. The
// middleware ends the span with it while the panic goes on, so that no
// span is left open and the duration is still recorded.
func handlerPanicked() outcome {
	return outcome{errorType: "-32603", code: "-32603", message: "the handler panicked"}
}

// classify turns a handler's or a call's error into an outcome. serverSide
// applies the receiver's rules: the caller's faults (-32700, -32600,
// -32601, -32602, -32002) are not errors there, and an error that is no
// *jsonrpc.Error is answered -32603, so that is its code (unless it is the
// request's context ending, which is no answer of the handler's).
func classify(err error, toolError, serverSide bool) outcome {
	if err == nil {
		if toolError {
			return outcome{errorType: "tool_error", message: "the tool reported an error"}
		}
		return outcome{}
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		code := strconv.FormatInt(je.Code, 10)
		if serverSide && callerFault(je.Code) {
			return outcome{code: code, callerFault: true}
		}
		return outcome{errorType: code, code: code, message: je.Message}
	}
	if serverSide && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		code := strconv.FormatInt(jsonrpc.CodeInternalError, 10)
		return outcome{errorType: code, code: code, message: err.Error()}
	}
	return outcome{errorType: "_OTHER", message: err.Error()}
}

// callerFault reports a JSON-RPC error code the conventions do not count
// as the server's error.
func callerFault(code int64) bool {
	switch code {
	case -32700, -32600, -32601, -32602, -32002:
		return true
	}
	return false
}

// end ends span and records the operation's duration in h. A request
// refused as the caller's fault is recorded without its tool or prompt
// name: that name is whatever the caller sent (an unknown tool is -32602),
// and the metric must have a series per tool or prompt the server has, not
// one per name a client makes up. For the same reason an unrouted message
// whose method the protocol does not define is recorded under _OTHER. The
// span keeps the names.
func (i *Instrumentation) end(ctx context.Context, span trace.Span, h metric.Float64Histogram, op *operation, start time.Time, out outcome) {
	measured := *op
	if out.callerFault {
		measured.tool, measured.prompt = "", ""
	}
	if op.unrouted && !protocolMethod(op.method) {
		measured.method = otherMethod
	}
	attrs := measured.attributes(false)
	if out.code != "" {
		attrs = append(attrs, attribute.String(AttrStatusCode, out.code))
	}
	if out.errorType != "" {
		attrs = append(attrs, attribute.String(AttrErrorType, out.errorType))
	}
	h.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
	if span.IsRecording() {
		if op.id.IsValid() && !op.id.IsNull() {
			span.SetAttributes(attribute.String(AttrRequestID, op.id.String()))
		}
		if out.code != "" {
			span.SetAttributes(attribute.String(AttrStatusCode, out.code))
		}
		if out.errorType != "" {
			span.SetAttributes(attribute.String(AttrErrorType, out.errorType))
			span.SetStatus(codes.Error, out.message)
		}
	}
	span.End()
}

// inject returns the trace context of ctx as _meta members.
func (i *Instrumentation) inject(ctx context.Context) propagation.MapCarrier {
	c := propagation.MapCarrier{}
	i.propagator.Inject(ctx, c)
	return c
}

// metaSetter is a message whose _meta can be added to: a client.Request
// or a server.AskRequest.
type metaSetter interface {
	SetMeta(key string, value any) error
}

// propagate puts the trace context of ctx in msg's _meta. A message whose
// params cannot carry it is sent without it (the failure is recorded on
// span): tracing must not break a call.
func (i *Instrumentation) propagate(ctx context.Context, span trace.Span, msg metaSetter) {
	for k, v := range i.inject(ctx) {
		if err := msg.SetMeta(k, v); err != nil {
			span.RecordError(err)
			return
		}
	}
}

// taskParent returns the span context of the request that created a
// task, from the task's metadata (server.Request.SetTaskMeta); invalid
// when the request was not traced.
func (i *Instrumentation) taskParent(meta map[string]string) trace.SpanContext {
	if len(meta) == 0 {
		return trace.SpanContext{}
	}
	return trace.SpanContextFromContext(i.propagator.Extract(context.Background(), propagation.MapCarrier(meta)))
}

// extract returns ctx with the trace context found in meta as its remote
// parent, and a link to the span ctx already carried (an HTTP server span,
// say) when meta had a context of its own.
func (i *Instrumentation) extract(ctx context.Context, meta mcp.Meta) (context.Context, []trace.SpanStartOption) {
	if len(meta) == 0 {
		return ctx, nil
	}
	ambient := trace.SpanContextFromContext(ctx)
	out := i.propagator.Extract(ctx, metaCarrier(meta))
	remote := trace.SpanContextFromContext(out)
	if !remote.IsValid() || remote.Equal(ambient) {
		return out, nil
	}
	if ambient.IsValid() {
		return out, []trace.SpanStartOption{trace.WithLinks(trace.Link{SpanContext: ambient})}
	}
	return out, nil
}
