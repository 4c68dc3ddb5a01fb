package main

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	weftotel "github.com/weftmcp/weft/otel"
	"github.com/weftmcp/weft/server"
)

// instrument adds weft's OpenTelemetry server middleware to opts for the
// -otel mode, as the otel module's BenchmarkToolCall does: a tracer that
// samples nothing (sampled-out) or one that records every span and hands it
// to an exporter that drops it (recording), metrics to a no-op meter, so
// the figure is the cost of tracing a call. It returns what shuts the
// tracer down.
func instrument(mode string, opts *server.Options) (func(context.Context) error, error) {
	var sampler sdktrace.Sampler
	switch mode {
	case "none":
		return func(context.Context) error { return nil }, nil
	case "sampled-out":
		sampler = sdktrace.NeverSample()
	case "recording":
		sampler = sdktrace.AlwaysSample()
	default:
		return nil, fmt.Errorf("-otel %q is not one of none, sampled-out, recording", mode)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler),
		sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())))
	inst, err := weftotel.New(&weftotel.Options{TracerProvider: tp, MeterProvider: noop.NewMeterProvider(), Propagator: propagation.TraceContext{}})
	if err != nil {
		return nil, fmt.Errorf("set up OpenTelemetry: %w", err)
	}
	opts.Middleware = append(opts.Middleware, inst.ServerMiddleware())
	opts.AskMiddleware = append(opts.AskMiddleware, inst.ServerAskMiddleware())
	opts.Sessions = inst.SessionHooks()
	return tp.Shutdown, nil
}
