package otel_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	weftotel "github.com/weftmcp/weft/otel"
)

// BenchmarkToolCall measures a tools/call over an in-memory pipe with both
// sides uninstrumented, traced by a tracer that samples nothing, and
// traced by one that records every span (and exports it to an exporter
// that drops it). Metrics go to a no-op meter, so the figures are the
// tracing's cost.
func BenchmarkToolCall(b *testing.B) {
	params := &mcp.CallToolParams{Name: "greet", Arguments: []byte(`{"name":"Ada"}`)}
	for _, bc := range []struct {
		name    string
		sampler sdktrace.Sampler // nil: no instrumentation
	}{
		{"none", nil},
		{"sampled-out", sdktrace.NeverSample()},
		{"recording", sdktrace.AlwaysSample()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var session *client.Session
			if bc.sampler == nil {
				session = connect(greeter(nil), nil)
			} else {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(bc.sampler),
					sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())))
				inst, err := weftotel.New(&weftotel.Options{TracerProvider: tp, MeterProvider: noop.NewMeterProvider(), Propagator: propagation.TraceContext{}})
				if err != nil {
					b.Fatal(err)
				}
				session = connect(greeter(inst), &client.Options{Middleware: []client.Middleware{inst.ClientMiddleware()}})
			}
			defer session.Close()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := session.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
