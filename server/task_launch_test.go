package server

import (
	"context"
	stdjson "encoding/json"
	"io"
	"testing"

	"github.com/weftmcp/weft/internal/goid"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// On the memory store, a task's first run goes on the goroutine that served
// the tools/call creating it, once the call is answered: the run costs no
// hand-off to another goroutine (a quick task's life was 17–29% cheaper,
// BenchmarkTaskLifeCost, pipe, 1 in flight). On both task surfaces.
func TestTaskRunsOnTheGoroutineThatAnsweredItsCreation(t *testing.T) {
	for _, sf := range []struct{ name, version, caps string }{
		{"legacy", mcp.Version20251125, `{}`},
		{"extension", mcp.Version20260728, extCaps},
	} {
		t.Run(sf.name, func(t *testing.T) {
			served := make(chan uint64, 1) // the goroutine serving the tools/call
			ran := make(chan uint64, 1)    // the goroutine running the tool
			answered := make(chan struct{})
			s := New(mcp.Implementation{Name: "t", Version: "1"}, &Options{Tasks: newRuntime(t), Middleware: []Middleware{toolsCallServedOn(served)}})
			AddTool(s, &mcp.Tool{Name: "job"}, func(ctx context.Context, _ *Request, in echoIn) (echoOut, error) {
				ran <- goid.Current()
				select {
				case <-answered: // the run starts once the creating call is answered
				case <-ctx.Done():
				}
				return echoOut{Echo: in.Text}, nil
			}, optional)
			c := open(t, s, sf.version, sf.caps, nil)
			call := `{"name":"job","arguments":{"text":"hi"}}`
			if !mcp.IsModern(sf.version) {
				call = `{"name":"job","arguments":{"text":"hi"},"task":{}}`
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitFor)
			defer cancel()
			var created stdjson.RawMessage
			if err := c.conn.Call(ctx, mcp.MethodToolsCall, stdjson.RawMessage(c.withMeta(call, "")), &created); err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			close(answered)
			if got, want := receiveWithin(ctx, t, ran, "the task's run"), receiveWithin(ctx, t, served, "the call's serving"); got != want {
				t.Errorf("the task ran on goroutine %d; want %d, which served the tools/call creating it", got, want)
			}
		})
	}
}

// toolsCallServedOn is middleware that sends the goroutine serving each
// tools/call on served.
func toolsCallServedOn(served chan<- uint64) Middleware {
	return func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (Result, error) {
			if r.Method() == mcp.MethodToolsCall {
				served <- goid.Current()
			}
			return next(ctx, r)
		}
	}
}

// receiveWithin waits for a value on ch until ctx ends.
func receiveWithin[T any](ctx context.Context, t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

// A quick legacy task's last notifications/tasks/status is written by the
// goroutine that ran the task (on the memory store, the one that served
// the tools/call creating it), not by the session's sender: no goroutine is
// woken for it.
func TestQuickTaskStatusIsWrittenWhereTheTaskRan(t *testing.T) {
	served := make(chan uint64, 1) // the goroutine serving the tools/call
	s := New(mcp.Implementation{Name: "t", Version: "1"}, &Options{Tasks: newRuntime(t), Middleware: []Middleware{toolsCallServedOn(served)}})
	AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Text}, nil
	}, optional)
	clientEnd, serverEnd := transport.Pipe()
	wrote := &statusWriters{Stream: serverEnd, by: make(chan uint64, 1)}
	c := connectOver(t, s, nil, clientEnd, wrote).initialize(mcp.Version20251125, `{}`)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	for range 5 {
		var created mcp.CreateTaskResult
		decode(t, c.mustCall(mcp.MethodToolsCall, `{"name":"echo","arguments":{"text":"hi"},"task":{}}`), &created)
		if got, want := receiveWithin(ctx, t, wrote.by, "status notification"), receiveWithin(ctx, t, served, "serving of the call"); got != want {
			t.Fatalf("task %s's status was written on goroutine %d; want %d, which ran it", created.Task.TaskID, got, want)
		}
	}
}

// statusWriters is a server's end of a stream that reports which goroutine
// writes each notifications/tasks/status.
type statusWriters struct {
	jsonrpc.Stream
	by chan uint64
}

func (w *statusWriters) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == mcp.NotificationTasksStatus {
		w.by <- goid.Current()
	}
	return w.Stream.Write(ctx, msg)
}

// A quick legacy task's last notifications/tasks/status goes to the
// stream's WriteSoon when the stream has one (transport.StdioStream), to
// go with the next message written.
func TestLastTaskStatusIsHeldForTheNextWrite(t *testing.T) {
	s := echoTaskServer(t)
	clientEnd, serverEnd := transport.Pipe()
	held := &soonRecorder{Stream: serverEnd, held: make(chan *jsonrpc.Request, 1)}
	c := connectOver(t, s, nil, clientEnd, held).initialize(mcp.Version20251125, `{}`)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	for range 3 {
		var created mcp.CreateTaskResult
		decode(t, c.mustCall(mcp.MethodToolsCall, `{"name":"echo","arguments":{"text":"hi"},"task":{}}`), &created)
		note := receiveWithin(ctx, t, held.held, "status notification held for the next write")
		var task mcp.Task
		decode(t, note.Params, &task)
		if note.Method != mcp.NotificationTasksStatus || task.TaskID != created.Task.TaskID || task.Status != mcp.TaskCompleted {
			t.Fatalf("held %s %s; want %s of task %s, completed", note.Method, note.Params, mcp.NotificationTasksStatus, created.Task.TaskID)
		}
		if got := c.nextNoteOf(mcp.NotificationTasksStatus); string(got.Params) != string(note.Params) {
			t.Fatalf("the client received %s; want the notification held", got.Params)
		}
	}
}

// soonRecorder is a server's end of a stream with a WriteSoon that reports
// each message held, then writes it at once.
type soonRecorder struct {
	jsonrpc.Stream
	held chan *jsonrpc.Request
}

func (w *soonRecorder) WriteSoon(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok {
		w.held <- req
	}
	return w.Stream.Write(ctx, msg)
}

// Over a real stdio stream, which holds it back for the next write, the
// last status notification still reaches a client that sends nothing
// more (within a millisecond).
func TestLastTaskStatusReachesAStdioClient(t *testing.T) {
	s := echoTaskServer(t)
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	serverEnd := transport.NewStdio(toServer, fromServer)
	clientEnd := transport.NewStdio(toClient, fromClient)
	c := connectOver(t, s, nil, clientEnd, serverEnd).initialize(mcp.Version20251125, `{}`)
	var created mcp.CreateTaskResult
	decode(t, c.mustCall(mcp.MethodToolsCall, `{"name":"echo","arguments":{"text":"hi"},"task":{}}`), &created)
	var task mcp.Task
	decode(t, c.nextNoteOf(mcp.NotificationTasksStatus).Params, &task)
	if task.TaskID != created.Task.TaskID || task.Status != mcp.TaskCompleted {
		t.Fatalf("status notification of task %s, %s; want task %s, completed", task.TaskID, task.Status, created.Task.TaskID)
	}
}

// echoTaskServer is a server with a task runtime on the memory store and
// an echo tool that may run as a task.
func echoTaskServer(t *testing.T) *Server {
	s := New(mcp.Implementation{Name: "t", Version: "1"}, &Options{Tasks: newRuntime(t)})
	AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Text}, nil
	}, optional)
	return s
}
