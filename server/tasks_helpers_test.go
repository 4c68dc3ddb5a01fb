package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// extCaps are the modern client capabilities of a client that runs tasks
// and answers elicitation and sampling.
const extCaps = `{"elicitation":{},"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// legacyTaskCaps are the 2025-11-25 capabilities of a client that answers
// elicitation and sampling.
const legacyTaskCaps = `{"elicitation":{},"sampling":{}}`

// quietLogger discards everything.
var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// fakeClock is a tasks.Clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newRuntime returns a task runtime on a fresh memory store and bus, closed
// when the test ends.
func newRuntime(t testing.TB, opts ...tasks.Option) *tasks.Runtime {
	t.Helper()
	return newRuntimeOn(t, tasks.NewMemoryStore(), tasks.NewMemoryBus(), opts...)
}

// newRuntimeOn returns a task runtime on the given store and bus (shared by
// several runtimes to stand for several instances).
func newRuntimeOn(t testing.TB, store tasks.Store, bus tasks.Bus, opts ...tasks.Option) *tasks.Runtime {
	t.Helper()
	rt, err := tasks.New(store, bus, append([]tasks.Option{tasks.WithLogger(quietLogger), tasks.WithProgressInterval(time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatalf("tasks.New: %v", err)
	}
	t.Cleanup(func() {
		// Stop whatever the test left running (held or waiting for input)
		// at once; tests that care how a handler ends check it themselves.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rt.Close(ctx)
	})
	return rt
}

// gate holds a tool's handler until the test opens it, and tells the test
// when the handler starts and how its context ended.
type gate struct {
	started chan struct{} // a token per handler start
	open    chan struct{} // closed to let handlers return
	ended   chan error    // the context cause when a handler saw its context end, nil when it was let go
	runs    atomic.Int32  // handler starts
	once    sync.Once
}

func newGate() *gate {
	return &gate{started: make(chan struct{}, 64), open: make(chan struct{}), ended: make(chan error, 64)}
}

// wait blocks the handler until the gate opens or ctx ends; ignoreCtx keeps
// it waiting for the gate even after its context ended.
func (g *gate) wait(ctx context.Context, ignoreCtx bool) error {
	g.runs.Add(1)
	g.started <- struct{}{}
	if ignoreCtx {
		<-g.open
		g.ended <- context.Cause(ctx)
		return nil
	}
	select {
	case <-g.open:
		g.ended <- nil
		return nil
	case <-ctx.Done():
		g.ended <- context.Cause(ctx)
		return context.Cause(ctx)
	}
}

// release lets every held handler return.
func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// awaitStart waits for a handler to start.
func (g *gate) awaitStart(t testing.TB) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(waitFor):
		t.Fatalf("the tool's handler did not start within %v", waitFor)
	}
}

// awaitEnd waits for a handler to end and returns its context's cause.
func (g *gate) awaitEnd(t testing.TB) error {
	t.Helper()
	select {
	case err := <-g.ended:
		return err
	case <-time.After(waitFor):
		t.Fatalf("the tool's handler did not end within %v", waitFor)
		return nil
	}
}

// optional and required are the task configurations most tests use.
var (
	optional = Tasks(TaskConfig{Support: mcp.TaskSupportOptional})
	required = Tasks(TaskConfig{Support: mcp.TaskSupportRequired})
)

// textResult returns a tool result with one text block.
func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: s}}}
}

// taskServer returns a server on rt with the task tools the tests share:
//
//	hold     waits at the gate (honouring its context), returns "held"
//	stubborn waits at the gate ignoring its context, returns "stubborn"
//	ask      asks for a name, returns "Hello, <name>!"
//	ask_two  asks two questions at once, returns both answers
//	tool_err returns a tool error (isError) "boom"
//	rpc_err  fails with JSON-RPC error -32042 "quota" and data
//	greet    inline only, returns "Hello, <name>!"
func taskServer(t testing.TB, rt *tasks.Runtime, g *gate, opts *Options) *Server {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Tasks = rt
	s := newTestServer(t, &o)
	s.AddRawTool(&mcp.Tool{Name: "hold", Description: "Waits at the gate."},
		func(ctx context.Context, r *Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			if err := g.wait(ctx, false); err != nil {
				return nil, err
			}
			return textResult("held"), nil
		}, optional)
	s.AddRawTool(&mcp.Tool{Name: "stubborn", Description: "Waits at the gate, whatever its context says."},
		func(ctx context.Context, r *Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
			g.wait(ctx, true)
			return textResult("stubborn"), nil
		}, optional)
	AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks for a name."},
		func(ctx context.Context, r *Request, _ struct{}) (string, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema})
			if err != nil {
				return "", err
			}
			return "Hello, " + field(res, "name") + "!", nil
		}, optional)
	AddTool(s, &mcp.Tool{Name: "ask_two", Description: "Asks two things at once."},
		func(ctx context.Context, r *Request, _ struct{}) (string, error) {
			a := AskElicit("first", &mcp.ElicitParams{Message: "First?", RequestedSchema: nameSchema})
			b := AskElicit("second", &mcp.ElicitParams{Message: "Second?", RequestedSchema: nameSchema})
			if err := r.AskAll(ctx, a, b); err != nil {
				return "", err
			}
			return field(a.Result, "name") + "+" + field(b.Result, "name"), nil
		}, optional)
	s.AddRawTool(&mcp.Tool{Name: "tool_err", Description: "Fails as a tool."},
		func(context.Context, *Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return nil, errors.New("boom")
		}, required)
	s.AddRawTool(&mcp.Tool{Name: "rpc_err", Description: "Fails with a protocol error."},
		func(context.Context, *Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.NewError(-32042, "quota").WithData(map[string]int{"retryAfter": 3})
		}, optional)
	AddTool(s, &mcp.Tool{Name: "greet", Description: "Greets, inline only."},
		func(_ context.Context, _ *Request, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})
	return s
}

// createLegacyTask calls a tool as a 2025-11-25 task and returns the task.
func createLegacyTask(t testing.TB, c *testClient, tool, task string) mcp.Task {
	t.Helper()
	raw := c.mustCall(mcp.MethodToolsCall, fmt.Sprintf(`{"name":%q,"arguments":{},"task":%s}`, tool, task))
	var res mcp.CreateTaskResult
	decode(t, raw, &res)
	if res.Task.TaskID == "" {
		t.Fatalf("tools/call %s with a task answered %s, not a CreateTaskResult", tool, raw)
	}
	return res.Task
}

// createExtensionTask calls a tool on a modern connection declaring the
// extension and returns the flat CreateTaskResult.
func createExtensionTask(t testing.TB, c *testClient, tool, args string) mcp.ExtCreateTaskResult {
	t.Helper()
	raw := c.mustCall(mcp.MethodToolsCall, fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	var res mcp.ExtCreateTaskResult
	decode(t, raw, &res)
	if res.ResultType != mcp.ResultTask || res.TaskID == "" {
		t.Fatalf("tools/call %s answered %s, not a CreateTaskResult", tool, raw)
	}
	return res
}

// awaitStatus waits, through the engine, until the task reaches status.
func awaitStatus(t testing.TB, rt *tasks.Runtime, principal, id string, status tasks.Status) tasks.Task {
	t.Helper()
	return awaitTask(t, rt, principal, id, string(status), func(task tasks.Task) bool { return task.Status == status })
}

// awaitInputs waits until the task is input_required with n outstanding
// requests, none of whose keys is in not.
func awaitInputs(t testing.TB, rt *tasks.Runtime, principal, id string, n int, not ...string) tasks.Task {
	t.Helper()
	return awaitTask(t, rt, principal, id, fmt.Sprintf("waiting for %d new input requests", n), func(task tasks.Task) bool {
		if task.Status != tasks.StatusInputRequired || len(task.InputRequests) != n {
			return false
		}
		for _, in := range task.InputRequests {
			for _, k := range not {
				if in.Key == k {
					return false
				}
			}
		}
		return true
	})
}

// awaitTask waits, through the engine, until the task satisfies ok.
func awaitTask(t testing.TB, rt *tasks.Runtime, principal, id, what string, ok func(tasks.Task) bool) tasks.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var last tasks.Task
	for task, err := range rt.Watch(ctx, principal, id) {
		if err != nil {
			t.Fatalf("task %s: %s (last %s): %v", id, what, last.Status, err)
		}
		last = task
		if ok(task) {
			return task
		}
	}
	t.Fatalf("task %s ended %s, never %s", id, last.Status, what)
	return last
}

// awaitMessage waits, through the engine, until the task's statusMessage
// is msg (progress is written asynchronously, throttled).
func awaitMessage(t testing.TB, rt *tasks.Runtime, principal, id, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var last tasks.Task
	for task, err := range rt.Watch(ctx, principal, id) {
		if err != nil {
			t.Fatalf("waiting for task %s to say %q (last %q): %v", id, msg, last.StatusMessage, err)
		}
		last = task
		if task.StatusMessage == msg {
			return
		}
	}
	t.Fatalf("task %s ended saying %q, never %q", id, last.StatusMessage, msg)
}

// extGet answers tasks/get on a modern connection.
func extGet(t testing.TB, c *testClient, id string) (mcp.ExtGetTaskResult, stdjson.RawMessage) {
	t.Helper()
	raw := c.mustCall(mcp.MethodTasksGet, fmt.Sprintf(`{"taskId":%q}`, id))
	var res mcp.ExtGetTaskResult
	decode(t, raw, &res)
	return res, raw
}

// wantCode asserts a JSON-RPC error code.
func wantCode(t testing.TB, what string, e *jsonrpc.Error, code int64) {
	t.Helper()
	if e.Code != code {
		t.Fatalf("%s: error %d %q, want code %d", what, e.Code, e.Message, code)
	}
}

// hasMember reports whether the raw JSON object has the member.
func hasMember(t testing.TB, raw []byte, name string) bool {
	t.Helper()
	var obj map[string]stdjson.RawMessage
	decode(t, raw, &obj)
	_, ok := obj[name]
	return ok
}

// nextNoteOf waits for the next notification with the method, skipping
// others.
func (c *testClient) nextNoteOf(method string) *jsonrpc.Request {
	c.t.Helper()
	for {
		n := c.nextNote()
		if n.Method == method {
			return n
		}
	}
}

// answerer serves the client side of server-to-client requests for task
// tests: it records each request and answers elicitations with a name.
type answerer struct {
	got  chan *jsonrpc.Request
	name string
	err  *jsonrpc.Error // when set, every request is refused with it
}

func newAnswerer(name string) *answerer {
	return &answerer{got: make(chan *jsonrpc.Request, 16), name: name}
}

func (a *answerer) answer(_ context.Context, method string, params stdjson.RawMessage) (any, error) {
	a.got <- &jsonrpc.Request{Method: method, Params: params}
	if a.err != nil {
		return nil, a.err
	}
	if method != mcp.MethodElicitationCreate {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "the test client answers no %s", method)
	}
	return map[string]any{"action": "accept", "content": map[string]any{"name": a.name}}, nil
}

// next waits for the next server-to-client request.
func (a *answerer) next(t testing.TB) *jsonrpc.Request {
	t.Helper()
	select {
	case r := <-a.got:
		return r
	case <-time.After(waitFor):
		t.Fatalf("the server sent no request to the client within %v", waitFor)
		return nil
	}
}

// text1 returns the first text block of a raw CallToolResult.
func text1(t testing.TB, raw []byte) string {
	t.Helper()
	var res mcp.CallToolResult
	decode(t, raw, &res)
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// containsAll reports whether s contains every part.
func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// field returns a string field of an elicitation answer's content ("" when
// absent or not a string).
func field(res *mcp.ElicitResult, key string) string {
	var v string
	json.Unmarshal(res.Content[key], &v)
	return v
}

// addCountTool registers count, a task tool with an integer argument n that
// returns n, with the task configuration opt.
func addCountTool(s *Server, opt ToolOption) {
	AddTool(s, &mcp.Tool{Name: "count", Description: "Returns n."},
		func(_ context.Context, _ *Request, in struct {
			N int `json:"n"`
		}) (int, error) {
			return in.N, nil
		}, opt)
}
