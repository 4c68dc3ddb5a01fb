package e2e

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// fixturePollInterval is the poll interval the fixture's tasks suggest,
// the same from creation on (the engine's suggestion otherwise starts
// shorter and grows with the task's age).
const fixturePollInterval = 150 * time.Millisecond

// dial connects the fixture server to a new in-memory pipe and returns the
// client's end; opts may name the connection's principal. The server side
// closes when the test ends.
func (f *fixture) dial(t testing.TB, opts *server.ConnectOptions) jsonrpc.Stream {
	t.Helper()
	clientEnd, serverEnd := transport.Pipe()
	ss, err := f.srv.Connect(context.Background(), serverEnd, opts)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientEnd
}

// close stops the fixture's task runtime.
func (f *fixture) close(t testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := f.rt.Close(ctx); err != nil {
		t.Errorf("closing the fixture's task runtime: %v", err)
	}
}

// addTaskTools registers the tools that run as tasks, and the ordinary
// tools that let a test steer them and look inside.
func (f *fixture) addTaskTools() {
	s := f.srv
	optional := server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional, ImmediateResponse: "Working on it."})

	// task_echo returns its text, as a task when asked.
	server.AddTool(s, &mcp.Tool{Name: "task_echo"}, func(_ context.Context, _ *server.Request, in textOut) (textOut, error) {
		return in, nil
	}, optional)
	// task_wait runs until task_release releases its tag or it is cancelled
	// (which task_was_cancelled reports).
	server.AddTool(s, &mcp.Tool{Name: "task_wait"}, func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
		f.happen("task-started-" + in.Tag)
		select {
		case <-f.event("task-release-" + in.Tag):
			return textOut{Text: "released " + in.Tag}, nil
		case <-ctx.Done():
			f.happen("task-cancelled-" + in.Tag)
			return textOut{}, context.Cause(ctx)
		case <-time.After(fixtureWait):
			return textOut{}, fmt.Errorf("task_wait %q was neither released nor cancelled", in.Tag)
		}
	}, optional)
	server.AddTool(s, &mcp.Tool{Name: "task_release"}, func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
		if !f.waitEvent(ctx, "task-started-"+in.Tag) {
			return textOut{}, fmt.Errorf("no task_wait %q started", in.Tag)
		}
		f.happen("task-release-" + in.Tag)
		return textOut{Text: "released"}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "task_started"}, func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
		return textOut{Text: fmt.Sprint(f.waitEvent(ctx, "task-started-"+in.Tag))}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "task_was_cancelled"}, func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
		return textOut{Text: fmt.Sprint(f.waitEvent(ctx, "task-cancelled-"+in.Tag))}, nil
	})
	// task_fail fails with a JSON-RPC error; task_tool_error reports a tool
	// error in its result.
	s.AddRawTool(&mcp.Tool{Name: "task_fail"}, func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32000, Message: "quota exceeded", Data: stdjson.RawMessage(`{"retryAfter":30}`)}
	}, optional)
	s.AddRawTool(&mcp.Tool{Name: "task_tool_error"}, func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "bad input"}}, IsError: true}, nil
	}, optional)
	// task_ask asks for a name, then (a second question) for a sample
	// quoting it.
	server.AddTool(s, &mcp.Tool{Name: "task_ask"}, func(ctx context.Context, r *server.Request, _ struct{}) (textOut, error) {
		name, err := r.Elicit(ctx, nameForm())
		if err != nil {
			return textOut{}, err
		}
		reply, err := r.Sample(ctx, samplePrompt("greet "+string(name.Content["name"])))
		if err != nil {
			return textOut{}, err
		}
		return textOut{Text: string(name.Content["name"]) + " / " + sampledText(reply)}, nil
	}, optional)
	// task_required must run as a task.
	server.AddTool(s, &mcp.Tool{Name: "task_required"}, func(context.Context, *server.Request, struct{}) (textOut, error) {
		return textOut{Text: "required ok"}, nil
	}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportRequired}))
	// task_quick runs inline first and becomes a task only if it is slow,
	// which it never is.
	server.AddTool(s, &mcp.Tool{Name: "task_quick"}, func(context.Context, *server.Request, struct{}) (textOut, error) {
		return textOut{Text: "quick"}, nil
	}, server.Tasks(server.TaskConfig{Support: mcp.TaskSupportOptional, PromoteAfter: fixtureWait}))
	// client_task_sample has the client sample as a client-hosted task
	// (2025-11-25) and polls it to the end.
	server.AddTool(s, &mcp.Tool{Name: "client_task_sample"}, func(ctx context.Context, r *server.Request, _ struct{}) (textOut, error) {
		ct, err := r.Session().SampleAsTask(ctx, samplePrompt("What is 2+2?"), time.Minute)
		if err != nil {
			return textOut{}, err
		}
		done, err := ct.Wait(ctx)
		if err != nil {
			return textOut{}, err
		}
		res, err := ct.Result(ctx)
		if err != nil {
			return textOut{}, err
		}
		return textOut{Text: fmt.Sprintf("client task %s %s: %s", ct.ID(), done.Status, sampledText(res))}, nil
	})
}
