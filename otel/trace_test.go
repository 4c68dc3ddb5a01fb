package otel_test

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	weftotel "github.com/weftmcp/weft/otel"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
)

type bookIn struct {
	Room string `json:"room"`
}

type booked struct {
	Confirmed bool `json:"confirmed"`
}

// instrument returns an Instrumentation whose spans go to rec, through a
// tracer provider of its own: the client's and the server's share nothing
// but the recorder, so a trace that spans both crossed the wire.
func instrument(t *testing.T, rec *tracetest.SpanRecorder) *weftotel.Instrumentation {
	t.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	i, err := weftotel.New(&weftotel.Options{TracerProvider: tp, Propagator: propagation.TraceContext{}})
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// bookingServer has a tool that asks the client to confirm with an
// elicitation, and one that always fails as a tool.
func bookingServer(i *weftotel.Instrumentation) *server.Server {
	s := server.New(mcp.Implementation{Name: "booking", Version: "1.0.0"}, &server.Options{
		Middleware:    []server.Middleware{i.ServerMiddleware()},
		AskMiddleware: []server.AskMiddleware{i.ServerAskMiddleware()},
	})
	server.AddTool(s, &mcp.Tool{Name: "book"}, func(ctx context.Context, r *server.Request, in bookIn) (booked, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Book " + in.Room + "?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
		if err != nil {
			return booked{}, err
		}
		return booked{Confirmed: res.Action == mcp.ElicitAccept}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "broken"}, func(ctx context.Context, r *server.Request, in bookIn) (booked, error) {
		return booked{}, errors.New("the booking system is down")
	})
	return s
}

// find returns the one span named name of kind, failing the test when
// there is not exactly one.
func find(t *testing.T, spans []sdktrace.ReadOnlySpan, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name && s.SpanKind() == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name()+" ("+s.SpanKind().String()+")")
		}
		t.Fatalf("%d spans %q of kind %s, want 1; the spans: %v", len(found), name, kind, names)
	}
	return found[0]
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value.Emit()
	}
	return m
}

// wantAttrs checks the attributes of s that want names; "*" means present
// with any non-empty value, "" absent.
func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[attribute.Key]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		switch g, ok := got[k]; {
		case v == "" && ok:
			t.Errorf("span %q (%s) has %s = %q, want none", s.Name(), s.SpanKind(), k, g)
		case v == "*" && g == "":
			t.Errorf("span %q (%s) has no %s; attributes %v", s.Name(), s.SpanKind(), k, got)
		case v != "" && v != "*" && g != v:
			t.Errorf("span %q (%s) has %s = %q, want %q", s.Name(), s.SpanKind(), k, g, v)
		}
	}
}

func TestOneTraceSpansClientServerAndTheServersElicitation(t *testing.T) {
	serverSpans, clientSpans := tracetest.NewSpanRecorder(), tracetest.NewSpanRecorder()
	si, ci := instrument(t, serverSpans), instrument(t, clientSpans)
	var handlerSpan trace.SpanContext
	cs, _ := servertest.ConnectHTTP(t, bookingServer(si), &client.Options{
		ProtocolVersion: mcp.Version20251125,
		Middleware:      []client.Middleware{ci.ClientMiddleware()},
		ServeMiddleware: []client.ServeMiddleware{ci.ClientServeMiddleware()},
		ElicitForm: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			handlerSpan = trace.SpanContextFromContext(ctx)
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{}}, nil
		},
	}, nil)

	root := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(clientSpans))
	ctx, span := root.Tracer("test").Start(context.Background(), "book a room")
	out, err := client.CallTool[booked](ctx, cs, "book", bookIn{Room: "Ada"})
	span.End()
	if err != nil || !out.Confirmed {
		t.Fatalf("book: %+v, %v; want confirmed", out, err)
	}

	cspans, sspans := clientSpans.Ended(), serverSpans.Ended()
	call := find(t, cspans, "tools/call book", trace.SpanKindClient)
	served := find(t, sspans, "tools/call book", trace.SpanKindServer)
	ask := find(t, sspans, "elicitation/create", trace.SpanKindClient)
	answered := find(t, cspans, "elicitation/create", trace.SpanKindServer)

	traceID := span.SpanContext().TraceID()
	for _, s := range []sdktrace.ReadOnlySpan{call, served, ask, answered} {
		if s.SpanContext().TraceID() != traceID {
			t.Errorf("span %q (%s) is in trace %s, want %s", s.Name(), s.SpanKind(), s.SpanContext().TraceID(), traceID)
		}
	}
	for _, link := range []struct {
		child, parent sdktrace.ReadOnlySpan
		parentName    string
	}{
		{call, nil, "the test's root span"},
		{served, call, "the client's tools/call span"},
		{ask, served, "the server's tools/call span"},
		{answered, ask, "the server's elicitation/create span"},
	} {
		want := span.SpanContext().SpanID()
		if link.parent != nil {
			want = link.parent.SpanContext().SpanID()
		}
		if got := link.child.Parent().SpanID(); got != want {
			t.Errorf("span %q (%s) has parent %s, want %s (%s)", link.child.Name(), link.child.SpanKind(), got, want, link.parentName)
		}
	}
	if handlerSpan.SpanID() != answered.SpanContext().SpanID() {
		t.Errorf("the client's elicitation handler ran in span %s, want the elicitation/create server span %s", handlerSpan.SpanID(), answered.SpanContext().SpanID())
	}
	if !answered.Parent().IsRemote() || !served.Parent().IsRemote() {
		t.Error("the receiving spans' parents are not remote: the context did not cross in _meta")
	}

	wantAttrs(t, call, map[attribute.Key]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "book", "gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version": "2025-11-25", "jsonrpc.request.id": "*", "error.type": ""})
	wantAttrs(t, served, map[attribute.Key]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "book", "mcp.protocol.version": "2025-11-25",
		"mcp.session.id": "*", "jsonrpc.request.id": attrs(call)["jsonrpc.request.id"], "error.type": ""})
	wantAttrs(t, ask, map[attribute.Key]string{"mcp.method.name": "elicitation/create", "mcp.session.id": attrs(served)["mcp.session.id"], "gen_ai.tool.name": ""})
	wantAttrs(t, answered, map[attribute.Key]string{"mcp.method.name": "elicitation/create", "mcp.protocol.version": "2025-11-25", "jsonrpc.request.id": "*"})
}

func TestSpansCarryErrorTypeBySide(t *testing.T) {
	serverSpans, clientSpans := tracetest.NewSpanRecorder(), tracetest.NewSpanRecorder()
	si, ci := instrument(t, serverSpans), instrument(t, clientSpans)
	cs, _ := servertest.ConnectHTTP(t, bookingServer(si), &client.Options{
		ProtocolVersion: mcp.Version20251125,
		Middleware:      []client.Middleware{ci.ClientMiddleware()},
	}, nil)
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "broken", Arguments: []byte(`{"room":"Ada"}`)})
	if err != nil || !res.IsError {
		t.Fatalf("broken: %+v, %v; want a tool error", res, err)
	}
	for _, s := range []sdktrace.ReadOnlySpan{find(t, clientSpans.Ended(), "tools/call broken", trace.SpanKindClient), find(t, serverSpans.Ended(), "tools/call broken", trace.SpanKindServer)} {
		wantAttrs(t, s, map[attribute.Key]string{"error.type": "tool_error"})
		if s.Status().Code != codes.Error {
			t.Errorf("span %q (%s) has status %v, want Error", s.Name(), s.SpanKind(), s.Status())
		}
	}

	// An unknown tool is the caller's fault: an error on the client's span,
	// not on the server's (the conventions' server-side rule).
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "missing", Arguments: []byte(`{}`)}); err == nil {
		t.Fatal("calling a missing tool succeeded")
	}
	sent := find(t, clientSpans.Ended(), "tools/call missing", trace.SpanKindClient)
	wantAttrs(t, sent, map[attribute.Key]string{"error.type": "-32602", "rpc.response.status_code": "-32602"})
	served := find(t, serverSpans.Ended(), "tools/call missing", trace.SpanKindServer)
	wantAttrs(t, served, map[attribute.Key]string{"error.type": "", "rpc.response.status_code": "-32602"})
	if served.Status().Code == codes.Error {
		t.Errorf("the server's span of a call to a missing tool has status Error: %v", served.Status())
	}
}

// A handler that panics is answered -32603 by the connection, which
// recovers; its span must end all the same, as that error, on the server
// and on a client serving the server's question.
func TestASpanEndsWhenItsHandlerPanics(t *testing.T) {
	serverSpans, clientSpans := tracetest.NewSpanRecorder(), tracetest.NewSpanRecorder()
	si, ci := instrument(t, serverSpans), instrument(t, clientSpans)
	s := bookingServer(si)
	s.AddResource(&mcp.Resource{URI: "file:///floor-plan", Name: "floor-plan"}, func(context.Context, *server.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
		panic("the floor plan is missing")
	})
	cs, _ := servertest.ConnectHTTP(t, s, &client.Options{
		ProtocolVersion: mcp.Version20251125,
		ServeMiddleware: []client.ServeMiddleware{ci.ClientServeMiddleware()},
		ElicitForm: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			panic("the dialog crashed")
		},
	}, nil)
	ctx := context.Background()

	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///floor-plan"}); err == nil {
		t.Fatal("reading a resource whose handler panics succeeded")
	}
	if _, err := client.CallTool[booked](ctx, cs, "book", bookIn{Room: "Ada"}); err == nil {
		t.Fatal("booking with an elicitation handler that panics succeeded")
	}
	wantInternalErrors(t, find(t, serverSpans.Ended(), "resources/read", trace.SpanKindServer),
		find(t, clientSpans.Ended(), "elicitation/create", trace.SpanKindServer))
	if started, ended := len(serverSpans.Started())+len(clientSpans.Started()), len(serverSpans.Ended())+len(clientSpans.Ended()); started != ended {
		t.Errorf("%d spans started and %d ended", started, ended)
	}
}

// A handler's error that is no *jsonrpc.Error is answered -32603 (internal
// error), so the receiver's span carries that code, as the conventions ask
// of every JSON-RPC error answer, on the server and on a client serving
// the server's question.
func TestAPlainHandlerErrorIsRecordedAsTheInternalErrorItIsAnswered(t *testing.T) {
	serverSpans, clientSpans := tracetest.NewSpanRecorder(), tracetest.NewSpanRecorder()
	si, ci := instrument(t, serverSpans), instrument(t, clientSpans)
	s := bookingServer(si)
	s.AddResource(&mcp.Resource{URI: "file:///floor-plan", Name: "floor-plan"}, func(context.Context, *server.Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
		return nil, errors.New("the floor plan is missing")
	})
	cs, _ := servertest.ConnectHTTP(t, s, &client.Options{
		ProtocolVersion: mcp.Version20251125,
		ServeMiddleware: []client.ServeMiddleware{ci.ClientServeMiddleware()},
		ElicitForm: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return nil, errors.New("the dialog is closed")
		},
	}, nil)
	ctx := context.Background()

	var rpcErr *jsonrpc.Error
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///floor-plan"}); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
		t.Fatalf("reading the resource: %v, want a -32603 answer", err)
	}
	if _, err := client.CallTool[booked](ctx, cs, "book", bookIn{Room: "Ada"}); err == nil {
		t.Fatal("booking with an elicitation handler that fails succeeded")
	}
	wantInternalErrors(t, find(t, serverSpans.Ended(), "resources/read", trace.SpanKindServer),
		find(t, clientSpans.Ended(), "elicitation/create", trace.SpanKindServer))
}

// wantInternalErrors checks that each span ended as a -32603 answer, with
// status Error.
func wantInternalErrors(t *testing.T, spans ...sdktrace.ReadOnlySpan) {
	t.Helper()
	for _, s := range spans {
		wantAttrs(t, s, map[attribute.Key]string{"error.type": "-32603", "rpc.response.status_code": "-32603"})
		if s.Status().Code != codes.Error {
			t.Errorf("span %q (%s) has status %v, want Error", s.Name(), s.SpanKind(), s.Status())
		}
	}
}
