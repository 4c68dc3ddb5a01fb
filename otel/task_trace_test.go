package otel_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	weftotel "github.com/weftmcp/weft/otel"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
	"github.com/weftmcp/weft/tasks"
)

// instance is one server of a cluster sharing a task store and bus, traced
// into spans of its own.
type instance struct {
	spans *tracetest.SpanRecorder
	ended chan string // the name of each task span as it ends
	rt    *tasks.Runtime
	srv   *server.Server
}

// endedNames is a span processor that reports the name of each internal
// span (a task's) that ends.
type endedNames chan string

func (e endedNames) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (e endedNames) OnEnd(s sdktrace.ReadOnlySpan) {
	if s.SpanKind() == trace.SpanKindInternal {
		e <- s.Name()
	}
}
func (e endedNames) Shutdown(context.Context) error   { return nil }
func (e endedNames) ForceFlush(context.Context) error { return nil }

// waitEnded waits for the instance to end a span named name.
func (in *instance) waitEnded(t *testing.T, name string) {
	t.Helper()
	timeout := time.After(servertest.Timeout)
	for {
		select {
		case got := <-in.ended:
			if got == name {
				return
			}
		case <-timeout:
			t.Fatalf("no span %q ended within %v", name, servertest.Timeout)
		}
	}
}

// newInstance starts a server named name on store and bus, with a tool
// "deploy" that runs as a task until it is cancelled, a tool "build" that
// runs as a task and completes, and a task "confirm" that elicits.
func newInstance(t *testing.T, name string, store tasks.Store, bus tasks.Bus) *instance {
	in := &instance{spans: tracetest.NewSpanRecorder(), ended: make(chan string, 100)}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(in.spans), sdktrace.WithSpanProcessor(endedNames(in.ended)))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	inst, err := weftotel.New(&weftotel.Options{TracerProvider: tp, Propagator: propagation.TraceContext{}})
	if err != nil {
		t.Fatal(err)
	}
	in.rt, err = tasks.New(store, bus, tasks.WithInstanceID(name), tasks.WithObserver(inst.TaskObserver()),
		tasks.WithPollInterval(10*time.Millisecond), tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.rt.Close(context.Background()) })
	in.srv = server.New(mcp.Implementation{Name: name, Version: "1.0.0"}, &server.Options{
		Tasks:         in.rt,
		Middleware:    []server.Middleware{inst.ServerMiddleware()},
		AskMiddleware: []server.AskMiddleware{inst.ServerAskMiddleware()},
	})
	asTask := server.Tasks(server.TaskConfig{Support: mcp.TaskSupportRequired})
	server.AddTool(in.srv, &mcp.Tool{Name: "deploy"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", context.Cause(ctx)
	}, asTask)
	server.AddTool(in.srv, &mcp.Tool{Name: "build"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		return "built", nil
	}, asTask)
	server.AddTool(in.srv, &mcp.Tool{Name: "confirm"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "OK?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
		if err != nil {
			return "", err
		}
		return string(res.Action), nil
	}, asTask)
	return in
}

// spanAttr returns one attribute of a span, "" when it has none.
func spanAttr(s sdktrace.ReadOnlySpan, key string) string { return attrs(s)[attribute.Key(key)] }

func TestATaskSpanCoversTheTaskOnWhicheverInstanceItEnds(t *testing.T) {
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	a, b := newInstance(t, "a", store, bus), newInstance(t, "b", store, bus)
	ctx := context.Background()
	toA, _ := servertest.ConnectHTTP(t, a.srv, nil, nil)
	toB, _ := servertest.ConnectHTTP(t, b.srv, nil, nil)

	// Created on a, polled and cancelled on b: b writes the final status
	// and emits the task's span, as the child of a's creating span.
	h, err := toA.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	onB := toB.Task(h.ID())
	if st, err := onB.Status(ctx); err != nil || st.Status != mcp.TaskWorking {
		t.Fatalf("tasks/get on b: %+v, %v; want working", st, err)
	}
	if err := onB.Cancel(ctx); err != nil {
		t.Fatal(err)
	}

	created := find(t, a.spans.Ended(), "tools/call deploy", trace.SpanKindServer)
	if got := spanAttr(created, weftotel.AttrTaskID); got != h.ID() {
		t.Errorf("the creating span has mcp.task.id %q, want %q", got, h.ID())
	}
	for _, s := range a.spans.Ended() {
		if s.SpanKind() == trace.SpanKindInternal {
			t.Errorf("a, which did not end the task, emitted span %q", s.Name())
		}
	}
	task := find(t, b.spans.Ended(), "task tools/call deploy", trace.SpanKindInternal)
	if task.Parent().SpanID() != created.SpanContext().SpanID() || task.SpanContext().TraceID() != created.SpanContext().TraceID() {
		t.Errorf("the task span's parent is %s in trace %s, want a's creating span %s in trace %s",
			task.Parent().SpanID(), task.SpanContext().TraceID(), created.SpanContext().SpanID(), created.SpanContext().TraceID())
	}
	if !task.Parent().IsRemote() {
		t.Error("the task span's parent is not remote, though it was read from the task's record")
	}
	wantAttrs(t, task, map[attribute.Key]string{"mcp.task.id": h.ID(), "mcp.task.status": "cancelled",
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "deploy", "error.type": ""})
	if task.StartTime().After(created.EndTime()) || task.EndTime().Before(task.StartTime()) {
		t.Errorf("the task span runs from %v to %v; it should start at the task's creation, within the creating span (which ended %v)",
			task.StartTime(), task.EndTime(), created.EndTime())
	}
	for _, name := range []string{"tasks/get", "tasks/cancel"} {
		poll := find(t, b.spans.Ended(), name, trace.SpanKindServer)
		wantAttrs(t, poll, map[attribute.Key]string{"mcp.task.id": h.ID()})
		if links := poll.Links(); len(links) != 1 || links[0].SpanContext.SpanID() != created.SpanContext().SpanID() {
			t.Errorf("%s on b links to %v, want only a's creating span %s", name, links, created.SpanContext().SpanID())
		}
	}

	// Created, run and finished on a: a emits the span.
	res, err := client.CallTool[string](ctx, toA, "build", struct{}{}, client.WithTask())
	if err != nil || res != "built" {
		t.Fatalf("build: %q, %v", res, err)
	}
	a.waitEnded(t, "task tools/call build") // a writes the final status as the client may already read it
	built := find(t, a.spans.Ended(), "tools/call build", trace.SpanKindServer)
	task = find(t, a.spans.Ended(), "task tools/call build", trace.SpanKindInternal)
	if task.Parent().SpanID() != built.SpanContext().SpanID() {
		t.Errorf("the build task's span has parent %s, want the creating span %s", task.Parent().SpanID(), built.SpanContext().SpanID())
	}
	wantAttrs(t, task, map[attribute.Key]string{"mcp.task.status": "completed", "gen_ai.tool.name": "build", "error.type": ""})

	// A 2025-11-25 task: its tasks/result links to the creating span too.
	legacy, _ := servertest.ConnectHTTP(t, a.srv, &client.Options{ProtocolVersion: mcp.Version20251125}, nil)
	lh, err := legacy.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "build", Arguments: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lh.Result(ctx); err != nil {
		t.Fatal(err)
	}
	var createdLegacy, result sdktrace.ReadOnlySpan
	for _, s := range a.spans.Ended() {
		switch {
		case s.Name() == "tools/call build" && spanAttr(s, weftotel.AttrTaskID) == lh.ID():
			createdLegacy = s
		case s.Name() == "tasks/result" && spanAttr(s, weftotel.AttrTaskID) == lh.ID():
			result = s
		}
	}
	if createdLegacy == nil || result == nil {
		t.Fatalf("no creating span (%v) or tasks/result span (%v) for the legacy task", createdLegacy, result)
	}
	if links := result.Links(); len(links) != 1 || links[0].SpanContext.SpanID() != createdLegacy.SpanContext().SpanID() {
		t.Errorf("tasks/result links to %v, want only the creating span %s", links, createdLegacy.SpanContext().SpanID())
	}
}

func TestATasksQuestionJoinsTheTraceOfTheRequestThatCreatedIt(t *testing.T) {
	a := newInstance(t, "a", tasks.NewMemoryStore(), tasks.NewMemoryBus())
	asked := make(chan string, 1)
	cs, _ := servertest.ConnectHTTP(t, a.srv, &client.Options{
		ElicitForm: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			tp, _ := p.Meta.String("traceparent")
			asked <- tp
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{}}, nil
		},
	}, nil)
	out, err := client.CallTool[string](context.Background(), cs, "confirm", struct{}{}, client.WithTask())
	if err != nil || out != "accept" {
		t.Fatalf("confirm: %q, %v; want accept", out, err)
	}
	a.waitEnded(t, "task tools/call confirm")
	created := find(t, a.spans.Ended(), "tools/call confirm", trace.SpanKindServer)
	ask := find(t, a.spans.Ended(), "elicitation/create", trace.SpanKindClient)
	if ask.Parent().SpanID() != created.SpanContext().SpanID() || ask.SpanContext().TraceID() != created.SpanContext().TraceID() {
		t.Errorf("the task's elicitation span has parent %s, want the creating span %s", ask.Parent().SpanID(), created.SpanContext().SpanID())
	}
	wantAttrs(t, ask, map[attribute.Key]string{"mcp.task.id": spanAttr(created, weftotel.AttrTaskID), "gen_ai.tool.name": ""})
	want := "00-" + ask.SpanContext().TraceID().String() + "-" + ask.SpanContext().SpanID().String() + "-01"
	if tp := <-asked; tp != want {
		t.Errorf("the client got the question with traceparent %q, want the elicitation span's %q", tp, want)
	}
}
