package otel_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	weftotel "github.com/weftmcp/weft/otel"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/server/servertest"
	"github.com/weftmcp/weft/transport"
)

// samples sums up the data points of a histogram that share an attribute
// value.
type samples struct {
	count uint64
	sum   float64
}

// histogramSamples returns the samples of the histogram name, keyed by the
// value of attribute key.
func histogramSamples(t *testing.T, reader sdkmetric.Reader, name, key string) map[string]samples {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]samples{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok || m.Name != name {
				continue
			}
			for _, p := range h.DataPoints {
				v, _ := p.Attributes.Value(attribute.Key(key))
				s := out[v.Emit()]
				s.count, s.sum = s.count+p.Count, s.sum+p.Sum
				out[v.Emit()] = s
			}
		}
	}
	return out
}

func TestOperationAndSessionDurationsAreRecorded(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	si, err := weftotel.New(&weftotel.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan server.SessionInfo, 1)
	hooks := si.SessionHooks()
	s := server.New(mcp.Implementation{Name: "timed", Version: "1.0.0"}, &server.Options{
		Middleware: []server.Middleware{si.ServerMiddleware()},
		Sessions: server.SessionHooks{Start: hooks.Start, End: func(info server.SessionInfo) {
			hooks.End(info)
			ended <- info
		}},
	})
	server.AddTool(s, &mcp.Tool{Name: "noop"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) { return "", nil })
	cs, _ := servertest.Connect(t, s, &client.Options{ProtocolVersion: mcp.Version20251125})
	for range 3 {
		if _, err := client.CallTool[string](context.Background(), cs, "noop", struct{}{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := histogramSamples(t, reader, "mcp.server.operation.duration", weftotel.AttrToolName)["noop"].count; got != 3 {
		t.Errorf("mcp.server.operation.duration has %d samples for tool noop, want 3", got)
	}
	cs.Close()
	select {
	case <-ended:
	case <-time.After(servertest.Timeout):
		t.Fatalf("the session did not end within %v of the client closing", servertest.Timeout)
	}
	if got := histogramSamples(t, reader, "mcp.server.session.duration", weftotel.AttrProtocolVersion)["2025-11-25"].count; got != 1 {
		t.Errorf("mcp.server.session.duration has %d samples for 2025-11-25, want 1", got)
	}
}

// A client can send any tool or prompt name; a name the server does not
// have (-32602) must not become a series of mcp.server.operation.duration,
// or a client making up names grows the metric without bound. The calls
// are still counted, under their method.
func TestUnknownToolAndPromptNamesAreNoMetricAttributes(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	si, err := weftotel.New(&weftotel.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(mcp.Implementation{Name: "named", Version: "1.0.0"}, &server.Options{
		Middleware: []server.Middleware{si.ServerMiddleware()},
	})
	server.AddTool(s, &mcp.Tool{Name: "noop"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) { return "", nil })
	s.AddPrompt(&mcp.Prompt{Name: "greeting"}, func(context.Context, *server.Request, map[string]string) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{}}, nil
	})
	cs, _ := servertest.Connect(t, s, &client.Options{ProtocolVersion: mcp.Version20251125})
	ctx := context.Background()
	if _, err := client.CallTool[string](ctx, cs, "noop", struct{}{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greeting"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"made-up-1", "made-up-2"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name}); err == nil {
			t.Fatalf("calling the unknown tool %s succeeded", name)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name}); err == nil {
			t.Fatalf("getting the unknown prompt %s succeeded", name)
		}
	}
	absent := attribute.Value{}.Emit() // how histogramSamples keys the samples without the attribute
	for key, want := range map[string]string{weftotel.AttrToolName: "noop", weftotel.AttrPromptName: "greeting"} {
		for name := range histogramSamples(t, reader, "mcp.server.operation.duration", key) {
			if name != want && name != absent {
				t.Errorf("mcp.server.operation.duration has a series with %s %q, which the server does not have", key, name)
			}
		}
	}
	byMethod := histogramSamples(t, reader, "mcp.server.operation.duration", weftotel.AttrMethodName)
	if byMethod["tools/call"].count != 3 || byMethod["prompts/get"].count != 3 {
		t.Errorf("mcp.server.operation.duration has %d tools/call and %d prompts/get samples, want 3 of each", byMethod["tools/call"].count, byMethod["prompts/get"].count)
	}
}

// The receiver passes every notification to its middleware, and a client
// everything its server sends, whatever the method: a method the protocol
// does not define is any string the sender made up, and is measured under
// _OTHER rather than as a series of its own. Each side here faces a raw
// peer that sends two made-up notifications and a real one.
func TestMadeUpMethodsAreMeasuredAsOther(t *testing.T) {
	sent := []string{"notifications/made-up-1", "notifications/made-up-2"}
	// notifiedBy sends the made-up notifications and known over conn, and
	// waits until served has reported all three.
	notifiedBy := func(t *testing.T, conn *jsonrpc.Conn, known string, served <-chan string) {
		t.Helper()
		for _, m := range append(sent, known) {
			if err := conn.Notify(context.Background(), m, struct{}{}); err != nil {
				t.Fatal(err)
			}
			if got := <-served; got != m {
				t.Fatalf("served %s, want %s", got, m)
			}
		}
	}
	// wantOther checks the receiver's histogram: the made-up methods under
	// _OTHER, the real one under its name.
	wantOther := func(t *testing.T, reader sdkmetric.Reader, known string) {
		t.Helper()
		byMethod := histogramSamples(t, reader, "mcp.server.operation.duration", weftotel.AttrMethodName)
		for _, m := range sent {
			if _, ok := byMethod[m]; ok {
				t.Errorf("mcp.server.operation.duration has a series for the made-up method %q", m)
			}
		}
		if byMethod["_OTHER"].count != 2 || byMethod[known].count != 1 {
			t.Errorf("mcp.server.operation.duration by method: %v; want 2 samples under _OTHER and 1 for %s", byMethod, known)
		}
	}
	newInstrumentation := func(t *testing.T) (*weftotel.Instrumentation, sdkmetric.Reader) {
		reader := sdkmetric.NewManualReader()
		i, err := weftotel.New(&weftotel.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
		if err != nil {
			t.Fatal(err)
		}
		return i, reader
	}

	t.Run("server", func(t *testing.T) {
		i, reader := newInstrumentation(t)
		served := make(chan string, 4)
		// The outermost middleware reports each notification once the
		// instrumentation has measured it.
		s := server.New(mcp.Implementation{Name: "notified", Version: "1.0.0"}, &server.Options{Middleware: []server.Middleware{
			func(next server.MethodHandler) server.MethodHandler {
				return func(ctx context.Context, r *server.Request) (server.Result, error) {
					res, err := next(ctx, r)
					if r.IsNotification() {
						served <- r.Method()
					}
					return res, err
				}
			},
			i.ServerMiddleware(),
		}})
		clientEnd, serverEnd := transport.Pipe()
		ss, err := s.Connect(context.Background(), serverEnd, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		conn := jsonrpc.NewConn(clientEnd, jsonrpc.ConnOptions{})
		t.Cleanup(func() { conn.Close() })
		hello := &mcp.InitializeParams{ProtocolVersion: mcp.Version20251125, ClientInfo: mcp.Implementation{Name: "raw", Version: "1"}}
		if err := conn.Call(context.Background(), mcp.MethodInitialize, hello, &mcp.InitializeResult{}); err != nil {
			t.Fatal(err)
		}
		notifiedBy(t, conn, mcp.NotificationInitialized, served)
		wantOther(t, reader, mcp.NotificationInitialized)
	})

	t.Run("client", func(t *testing.T) {
		i, reader := newInstrumentation(t)
		served := make(chan string, 4)
		clientEnd, serverEnd := transport.Pipe()
		initialized := make(chan struct{})
		conn := jsonrpc.NewConn(serverEnd, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
			switch req.Method {
			case mcp.MethodInitialize:
				return &mcp.InitializeResult{ProtocolVersion: mcp.Version20251125, ServerInfo: mcp.Implementation{Name: "raw", Version: "1"}}, nil
			case mcp.NotificationInitialized:
				close(initialized)
			}
			return nil, nil
		})})
		t.Cleanup(func() { conn.Close() })
		cs, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
			ProtocolVersion: mcp.Version20251125,
			ServeMiddleware: []client.ServeMiddleware{
				func(next client.ServeHandler) client.ServeHandler {
					return func(ctx context.Context, s *client.Session, req *jsonrpc.Request) (any, error) {
						res, err := next(ctx, s, req)
						served <- req.Method
						return res, err
					}
				},
				i.ClientServeMiddleware(),
			},
		}).Connect(context.Background(), clientEnd)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		<-initialized
		notifiedBy(t, conn, mcp.NotificationToolsListChanged, served)
		wantOther(t, reader, mcp.NotificationToolsListChanged)
	})
}
