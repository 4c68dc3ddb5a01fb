package otel_test

import (
	"context"
	"fmt"
	"log"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	weftotel "github.com/weftmcp/weft/otel"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
)

type greetIn struct {
	Name string `json:"name"`
}

// greeter is a server with one tool, instrumented with inst (nil: not
// instrumented).
func greeter(inst *weftotel.Instrumentation) *server.Server {
	opts := &server.Options{}
	if inst != nil {
		opts.Middleware = []server.Middleware{inst.ServerMiddleware()}
		opts.AskMiddleware = []server.AskMiddleware{inst.ServerAskMiddleware()}
		opts.Sessions = inst.SessionHooks()
	}
	s := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, opts)
	server.AddTool(s, &mcp.Tool{Name: "greet"}, func(ctx context.Context, r *server.Request, in greetIn) (string, error) {
		return "hello " + in.Name, nil
	})
	return s
}

// connect serves s on one end of a pipe and connects a client with opts.
func connect(s *server.Server, opts *client.Options) *client.Session {
	ctx := context.Background()
	clientEnd, serverEnd := transport.Pipe()
	if _, err := s.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, opts).Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	return session
}

// A server traced and measured: every request gets a server span, and its
// duration goes to mcp.server.operation.duration, by method and tool.
// Here the metrics are read by a manual reader; weft serve --metrics
// exports them to Prometheus.
func ExampleInstrumentation_ServerMiddleware() {
	reader := sdkmetric.NewManualReader()
	spans := tracetest.NewInMemoryExporter()
	inst, err := weftotel.New(&weftotel.Options{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)),
	})
	if err != nil {
		log.Fatal(err)
	}
	session := connect(greeter(inst), nil)
	defer session.Close()
	if _, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "greet", Arguments: []byte(`{"name":"Ada"}`)}); err != nil {
		log.Fatal(err)
	}

	for _, s := range spans.GetSpans() {
		if s.Name == "tools/call greet" {
			fmt.Println("span:", s.Name, s.SpanKind)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "mcp.server.operation.duration" {
			for _, p := range h.DataPoints {
				if tool, ok := p.Attributes.Value(weftotel.AttrToolName); ok {
					fmt.Printf("%s{tool=%s}: %d call\n", m.Name, tool.AsString(), p.Count)
				}
			}
		}
	}
	// Output:
	// span: tools/call greet server
	// mcp.server.operation.duration{tool=greet}: 1 call
}

// A client traced: its tools/call span is the child of the span in ctx,
// and the server's span continues it, through the traceparent the client
// middleware puts in the request's _meta.
func ExampleInstrumentation_ClientMiddleware() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	inst, err := weftotel.New(&weftotel.Options{TracerProvider: tp, Propagator: propagation.TraceContext{}})
	if err != nil {
		log.Fatal(err)
	}
	session := connect(greeter(inst), &client.Options{
		Middleware:      []client.Middleware{inst.ClientMiddleware()},
		ServeMiddleware: []client.ServeMiddleware{inst.ClientServeMiddleware()},
	})
	defer session.Close()

	ctx, root := tp.Tracer("example").Start(context.Background(), "greet Ada")
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: []byte(`{"name":"Ada"}`)}); err != nil {
		log.Fatal(err)
	}
	root.End()

	for _, s := range spans.GetSpans() {
		if s.SpanContext.TraceID() == root.SpanContext().TraceID() {
			fmt.Println(s.Name, s.SpanKind)
		}
	}
	// Output:
	// tools/call greet server
	// tools/call greet client
	// greet Ada internal
}

// A task engine measured: TaskObserver counts finished tasks by tool and
// status and times their lives and their waits in input_required. Here a
// task asks its client to confirm, and the wait is recorded as the answer
// arrives.
func ExampleInstrumentation_TaskObserver() {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	inst, err := weftotel.New(&weftotel.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		log.Fatal(err)
	}
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(), tasks.WithObserver(inst.TaskObserver()))
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	s := server.New(mcp.Implementation{Name: "deployer", Version: "1.0.0"}, &server.Options{Tasks: rt})
	server.AddTool(s, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Deploy?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
		if err != nil {
			return "", err
		}
		return string(res.Action), nil
	}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportRequired}))

	session := connect(s, &client.Options{
		ElicitForm: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{}}, nil
		},
	})
	defer session.Close()
	if _, err := client.CallTool[string](ctx, session, "deploy", struct{}{}, client.WithTask()); err != nil {
		log.Fatal(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		log.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "mcp.server.task.input_required.duration" {
				tool, _ := h.DataPoints[0].Attributes.Value(weftotel.AttrToolName)
				fmt.Printf("%s: %d wait, tool %s\n", m.Name, h.DataPoints[0].Count, tool.Emit())
			}
		}
	}
	// Output:
	// mcp.server.task.input_required.duration: 1 wait, tool deploy
}
