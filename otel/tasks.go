package otel

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/weftmcp/weft/mcp"
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
		metric.WithDescription("The time a task spent waiting in input_required, once per wait."),
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
// (mcp.server.task.input_required.duration). A wait is measured by the
// instance that saw it begin and end.
func (i *Instrumentation) TaskObserver() tasks.TaskObserver {
	return &taskObserver{m: i.tasks}
}

// taskObserver is the TaskObserver TaskObserver returns.
type taskObserver struct {
	tasks.NopObserver
	m       *taskMetrics
	waiting sync.Map // task ID → time.Time it entered input_required
}

// TaskChanged implements tasks.TaskObserver.
func (o *taskObserver) TaskChanged(c tasks.TaskChange) {
	ctx := context.Background()
	attrs := []attribute.KeyValue{attribute.String(AttrMethodName, c.Method)}
	if c.Method == mcp.MethodToolsCall {
		attrs = append(attrs, attribute.String(AttrToolName, c.Name))
	}
	if c.From == tasks.StatusInputRequired {
		if entered, ok := o.waiting.LoadAndDelete(c.ID); ok {
			o.m.inputRequired.Record(ctx, c.UpdatedAt.Sub(entered.(time.Time)).Seconds(), metric.WithAttributes(attrs...))
		}
	}
	switch {
	case c.To == tasks.StatusInputRequired:
		o.waiting.Store(c.ID, c.UpdatedAt)
	case c.To != "" && c.To.Terminal():
		o.m.runTime.Record(ctx, c.UpdatedAt.Sub(c.CreatedAt).Seconds(), metric.WithAttributes(attrs...))
		status := append(attrs, attribute.String(AttrTaskStatus, string(c.To)))
		if c.IsError {
			status = append(status, attribute.String(AttrErrorType, "tool_error"))
		}
		o.m.finished.Add(ctx, 1, metric.WithAttributes(status...))
	}
}
