package otel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
)

// taskMetrics are the instruments of the task engine's metrics.
type taskMetrics struct {
	finished      metric.Int64Counter
	runTime       metric.Float64Histogram
	inputRequired metric.Float64Histogram
}

// newTaskMetrics makes the task instruments on meter.
func newTaskMetrics(meter metric.Meter) (*taskMetrics, error) {
	finished, err := meter.Int64Counter("mcp.server.task.finished", metric.WithUnit("{task}"),
		metric.WithDescription("Tasks that reached a final status, by tool and status."))
	if err != nil {
		return nil, err
	}
	runTime, err := meter.Float64Histogram("mcp.server.task.duration", metric.WithUnit("s"),
		metric.WithDescription("The time from a task's creation to its final status."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, err
	}
	inputRequired, err := meter.Float64Histogram("mcp.server.task.input_required.duration", metric.WithUnit("s"),
		metric.WithDescription("The time a task spent waiting in input_required, once per wait, by the instance that ended the wait."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return nil, err
	}
	return &taskMetrics{finished: finished, runTime: runTime, inputRequired: inputRequired}, nil
}

// TaskObserver returns a tasks.Observer, for tasks.WithObserver, that
// counts the tasks this instance finished by tool and final status
// (mcp.server.task.finished), and records their run time
// (mcp.server.task.duration) and each wait in input_required
// (mcp.server.task.input_required.duration). A wait is recorded by the
// instance that ends it (the one an answer or a cancellation reaches), from
// the task's last change before it ended (tasks.TaskChange.PrevUpdatedAt):
// the whole wait when the handler asks one question at a time, the time
// since the latest question or answer when it asks several at once. The
// observer keeps no state per task, so nothing is left behind by a wait
// another instance began or ended.
//
// It also gives each task whose creating request was traced (by
// ServerMiddleware, on any instance) a span covering the task's whole
// life, from its creation to its final status: the child of the creating
// request's server span, emitted by the instance that wrote the final
// status, wherever the task ran or was polled. The polls (tasks/get,
// tasks/result, tasks/cancel) carry mcp.task.id and link to that same
// creating span.
func (i *Instrumentation) TaskObserver() tasks.TaskObserver {
	return &taskObserver{m: i.tasks, i: i}
}

// taskObserver is the TaskObserver TaskObserver returns.
type taskObserver struct {
	tasks.NopObserver
	m *taskMetrics
	i *Instrumentation
}

// TaskChanged implements tasks.TaskObserver.
func (o *taskObserver) TaskChanged(c tasks.TaskChange) {
	ctx := context.Background()
	attrs := []attribute.KeyValue{attribute.String(AttrMethodName, c.Method)}
	if c.Method == mcp.MethodToolsCall {
		attrs = append(attrs, attribute.String(AttrToolName, c.Name))
	}
	if c.From == tasks.StatusInputRequired {
		o.m.inputRequired.Record(ctx, c.UpdatedAt.Sub(c.PrevUpdatedAt).Seconds(), metric.WithAttributes(attrs...))
	}
	if c.To != "" && c.To.Terminal() {
		o.m.runTime.Record(ctx, c.UpdatedAt.Sub(c.CreatedAt).Seconds(), metric.WithAttributes(attrs...))
		status := append(attrs, attribute.String(AttrTaskStatus, string(c.To)))
		if c.IsError {
			status = append(status, attribute.String(AttrErrorType, "tool_error"))
		}
		o.m.finished.Add(ctx, 1, metric.WithAttributes(status...))
		o.i.taskSpan(c)
	}
}

// taskSpan emits the span of a task that has just finished, from its
// creation to now, as the child of the request that created it; a task
// whose creation was not traced has none.
func (i *Instrumentation) taskSpan(c tasks.TaskChange) {
	created := i.taskParent(server.RecordedTaskMeta(c.Params))
	if !created.IsValid() {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.String(AttrMethodName, c.Method),
		attribute.String(AttrTaskID, c.ID),
		attribute.String(AttrTaskStatus, string(c.To)),
	}
	name := "task " + c.Method
	if c.Method == mcp.MethodToolsCall {
		attrs = append(attrs, attribute.String(AttrToolName, c.Name))
		name += " " + c.Name
	}
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), created)
	_, span := i.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(c.CreatedAt), trace.WithAttributes(attrs...))
	switch {
	case c.To == tasks.StatusFailed && c.Error != nil:
		out := classify(c.Error, false, false)
		span.SetAttributes(attribute.String(AttrErrorType, out.errorType))
		span.SetStatus(codes.Error, out.message)
	case c.To == tasks.StatusFailed:
		span.SetAttributes(attribute.String(AttrErrorType, "_OTHER"))
		span.SetStatus(codes.Error, "the task failed")
	case c.IsError:
		span.SetAttributes(attribute.String(AttrErrorType, "tool_error"))
		span.SetStatus(codes.Error, "the tool reported an error")
	}
	span.End(trace.WithTimestamp(c.UpdatedAt))
}
