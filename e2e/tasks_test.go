package e2e

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
)

// The client's task support against the real server, in both task
// surfaces: the 2025-11-25 tasks and the io.modelcontextprotocol/tasks
// extension of 2026-07-28. Tests are named after the client-side MUST and
// SHOULD of tasks.md they prove.

// taskVersions are the versions with tasks.
var taskVersions = []string{mcp.Version20251125, mcp.Version20260728}

// startTask calls a fixture tool as a task.
func startTask(t *testing.T, s *client.Session, name, args string) *client.TaskHandle {
	t.Helper()
	p := &mcp.CallToolParams{Name: name}
	if args != "" {
		p.Arguments = stdjson.RawMessage(args)
	}
	h, err := s.CallToolAsTask(ctxFor(t), p)
	if err != nil {
		t.Fatalf("CallToolAsTask %s: %v", name, err)
	}
	if h.ID() == "" {
		t.Fatalf("CallToolAsTask %s: the server answered at once, want a task", name)
	}
	return h
}

// declaresTasks reports whether a modern request declared the extension.
func declaresTasks(t *testing.T, req *jsonrpc.Request) bool {
	t.Helper()
	var p mcp.RequestParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		t.Fatal(err)
	}
	caps, err := p.Meta.ClientCapabilities()
	return err == nil && caps.HasExtension(mcp.ExtensionTasks)
}

// A.6/B.6: a task is created, polled with tasks/get until it finishes, and
// its result is the tool's. Modern: the call declares the extension (B.1).
// Legacy: the result comes from tasks/result.
func TestTaskIsCreatedAndAwaited(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		h := startTask(t, s, "task_echo", `{"text":"hello"}`)
		res, err := h.Wait(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		if got := outText(t, res); got != "hello" {
			t.Errorf("result %q, want hello", got)
		}
		if len(tp.sent(mcp.MethodTasksGet)) == 0 {
			t.Error("the client never sent tasks/get")
		}
		if s.IsModern() {
			if !declaresTasks(t, tp.sent(mcp.MethodToolsCall)[0]) {
				t.Error("the tools/call does not declare the tasks extension")
			}
			return
		}
		if h.ImmediateResponse() != "Working on it." {
			t.Errorf("ImmediateResponse = %q", h.ImmediateResponse())
		}
		if len(tp.sent(mcp.MethodTasksResult)) != 1 {
			t.Errorf("tasks/result sent %d times, want once", len(tp.sent(mcp.MethodTasksResult)))
		}
	})
}

// A.7 "Requestors SHOULD honour pollInterval", B.6 "Clients SHOULD respect
// pollIntervalMs": while the task works, polls are at least the suggested
// interval apart, counting from the creation.
func TestWaitRespectsThePollInterval(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		h := startTask(t, s, "task_wait", `{"tag":"poll"}`)
		created := tp.waitFor(t, "the created task", func(en tapEntry) bool {
			r, ok := en.msg.(*jsonrpc.Response)
			return ok && !en.sent && r.ID == tp.sent(mcp.MethodToolsCall)[0].ID
		}).at
		waited := make(chan error, 1)
		go func() {
			_, err := h.Wait(ctxFor(t))
			waited <- err
		}()
		tp.waitFor(t, "three tasks/get", func(tapEntry) bool { return len(tp.sent(mcp.MethodTasksGet)) >= 3 })
		polls := append([]time.Time{created}, tp.sentAt(mcp.MethodTasksGet)[:3]...)
		callTool(t, s, "task_release", `{"tag":"poll"}`)
		if err := <-waited; err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(polls); i++ {
			if gap := polls[i].Sub(polls[i-1]); gap < fixturePollInterval {
				t.Errorf("poll %d came %v after the previous, sooner than the suggested %v", i, gap, fixturePollInterval)
			}
		}
	})
}

// A.7/B.8: cancelling goes through tasks/cancel (never
// notifications/cancelled); the work stops, and Wait reports the task
// cancelled.
func TestTaskCancelStopsTheWork(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		h := startTask(t, s, "task_wait", `{"tag":"cancel"}`)
		if outText(t, callTool(t, s, "task_started", `{"tag":"cancel"}`)) != "true" {
			t.Fatal("the task never started")
		}
		if err := h.Cancel(ctxFor(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Wait(ctxFor(t)); !errors.Is(err, client.ErrTaskCancelled) {
			t.Fatalf("Wait = %v, want ErrTaskCancelled", err)
		}
		if outText(t, callTool(t, s, "task_was_cancelled", `{"tag":"cancel"}`)) != "true" {
			t.Error("the tool's context was not cancelled")
		}
		if len(tp.sent(mcp.MethodTasksCancel)) != 1 || len(tp.sent(mcp.NotificationCancelled)) != 0 {
			t.Errorf("sent %d tasks/cancel and %d notifications/cancelled, want 1 and 0",
				len(tp.sent(mcp.MethodTasksCancel)), len(tp.sent(mcp.NotificationCancelled)))
		}
	})
}

// A.7/B.6: a task whose tool failed with a JSON-RPC error surfaces that
// error (not a generic failure); a tool error is the task's result, in
// both eras.
func TestFailedTaskSurfacesItsError(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		s, _ := e.connect(t, nil)
		_, err := startTask(t, s, "task_fail", "").Wait(ctxFor(t))
		var failed *client.TaskFailedError
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &failed) || !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || rpcErr.Message != "quota exceeded" {
			t.Fatalf("Wait = %v, want a *TaskFailedError carrying the tool's -32000", err)
		}
		if string(rpcErr.Data) != `{"retryAfter":30}` {
			t.Errorf("the error's data = %s, want the tool's", rpcErr.Data)
		}
		res, err := startTask(t, s, "task_tool_error", "").Wait(ctxFor(t))
		if err != nil || !res.IsError || text(t, res) != "bad input" {
			t.Fatalf("Wait = %+v, %v; want the tool's isError result", res, err)
		}
	})
}

// Input inside a task. A.7: on input_required the client calls
// tasks/result, over which the server sends its requests with the
// related-task _meta. B.7: the client answers the inputRequests tasks/get
// shows with tasks/update, each key once, a question at a time as the
// tool asks them.
func TestTaskInputRoundTrip(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		a := &answerer{}
		s, tp := e.connect(t, a.options())
		res, err := startTask(t, s, "task_ask", "").Wait(ctxFor(t))
		if err != nil {
			t.Fatal(err)
		}
		if got := outText(t, res); got != `"octocat" / 4` {
			t.Errorf("result %q", got)
		}
		if !slices.Equal(a.asked, []string{"form:What is your name?", `sample:greet "octocat"`}) {
			t.Errorf("the client was asked %v", a.asked)
		}
		if !s.IsModern() {
			if len(tp.sent(mcp.MethodTasksResult)) == 0 {
				t.Fatal("the client never called tasks/result")
			}
			for _, m := range []string{mcp.MethodElicitationCreate, mcp.MethodSamplingCreateMessage} {
				reqs := tp.received(m)
				var p mcp.RequestParams
				if len(reqs) != 1 || json.Unmarshal(reqs[0].Params, &p) != nil || !p.Meta.Has(mcp.MetaRelatedTask) {
					t.Errorf("%s: %d requests, want one carrying the related-task _meta", m, len(reqs))
				}
			}
			return
		}
		var keys [][]string
		for _, r := range tp.sent(mcp.MethodTasksUpdate) {
			var up mcp.UpdateTaskParams
			if err := json.Unmarshal(r.Params, &up); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, slices.Sorted(maps.Keys(up.InputResponses)))
		}
		if len(keys) != 2 || len(keys[0]) != 1 || len(keys[1]) != 1 || keys[0][0] == keys[1][0] {
			t.Errorf("tasks/update keys %v, want two updates of one distinct key each", keys)
		}
	})
}

// B.6 "Clients SHOULD persist task IDs so they can resume after a crash":
// a handle rebuilt from the bare ID finds the task, in a new session of the
// same principal (pipe) or the same session (stdio, one process per
// session).
func TestHandleRecreatedFromItsID(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		if e.transport == "pipe" {
			f := newFixture()
			t.Cleanup(func() { f.close(t) })
			first := e.session(t, f)
			id := startTask(t, first, "task_wait", `{"tag":"resume"}`).ID()
			first.Close()
			s := e.session(t, f)
			callTool(t, s, "task_release", `{"tag":"resume"}`)
			res, err := s.Task(id).Wait(ctxFor(t))
			if err != nil || outText(t, res) != "released resume" {
				t.Fatalf("Wait = %+v, %v", res, err)
			}
			return
		}
		s, _ := e.connect(t, nil)
		id := startTask(t, s, "task_echo", `{"text":"kept"}`).ID()
		res, err := s.Task(id).Result(ctxFor(t))
		if err != nil || outText(t, res) != "kept" {
			t.Fatalf("Result = %+v, %v", res, err)
		}
	})
}

// session connects a client at the env's version to fixture f over a new
// pipe, as the principal "e2e-user".
func (e env) session(t *testing.T, f *fixture) *client.Session {
	t.Helper()
	s, err := client.New(clientInfo, &client.Options{ProtocolVersion: e.version}).Connect(ctxFor(t), f.dial(t, &server.ConnectOptions{Principal: "e2e-user"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// B.1: "A client that declared the capability MUST handle either
// CallToolResult or CreateTaskResult": a call the server finishes inline
// comes back complete, with no task to poll. A 2025-11-25 client decides
// itself, so there it is a task.
func TestPromotedCallMayComeBackInline(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		h, err := s.CallToolAsTask(ctxFor(t), &mcp.CallToolParams{Name: "task_quick"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := h.Wait(ctxFor(t))
		if err != nil || outText(t, res) != "quick" {
			t.Fatalf("Wait = %+v, %v", res, err)
		}
		if inline := h.ID() == ""; inline != s.IsModern() {
			t.Errorf("answered inline: %v, want %v at %s", inline, s.IsModern(), e.version)
		}
		if s.IsModern() && len(tp.sent(mcp.MethodTasksGet)) != 0 {
			t.Error("the client polled a call answered inline")
		}
	})
}

// A.3 "required: clients MUST augment": CallTool augments a listed
// required tool by itself. With the extension the server decides, and
// refuses (-32021) a call that does not accept a task; WithTask does.
func TestRequiredTaskTool(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		for _, err := range s.Tools(ctxFor(t)) {
			if err != nil {
				t.Fatal(err)
			}
		}
		res, err := s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "task_required"})
		if s.IsModern() {
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingRequiredClientCapability {
				t.Fatalf("CallTool without WithTask = %v, want -32021", err)
			}
			res, err = s.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "task_required"}, client.WithTask())
		}
		if err != nil || outText(t, res) != "required ok" {
			t.Fatalf("CallTool = %+v, %v", res, err)
		}
		if !s.IsModern() {
			var p mcp.CallToolParams
			json.Unmarshal(tp.sent(mcp.MethodToolsCall)[0].Params, &p)
			if p.Task == nil {
				t.Error("the call of a required tool was not task-augmented")
			}
		}
	})
}

// A.7 notifications/tasks/status and B.9 notifications/tasks (on a
// subscription naming the task) reach OnTaskStatus; Wait does not depend
// on them.
func TestTaskStatusNotifications(t *testing.T) {
	forEachOn(t, taskTransports, taskVersions, func(t *testing.T, e env) {
		states := make(chan *client.TaskState, 16)
		s, _ := e.connect(t, &client.Options{OnTaskStatus: func(_ context.Context, st *client.TaskState) { states <- st }})
		h := startTask(t, s, "task_wait", `{"tag":"notify"}`)
		if s.IsModern() {
			sub, err := s.Listen(ctxFor(t), mcp.SubscriptionFilter{TaskIDs: []string{h.ID()}})
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Close()
			if got := sub.Acknowledged().TaskIDs; !slices.Equal(got, []string{h.ID()}) {
				t.Fatalf("the server acknowledged task IDs %v", got)
			}
		}
		callTool(t, s, "task_release", `{"tag":"notify"}`)
		if _, err := h.Wait(ctxFor(t)); err != nil {
			t.Fatal(err)
		}
		deadline := time.After(testTimeout)
		for {
			select {
			case st := <-states:
				if st.ID == h.ID() && st.Status == mcp.TaskCompleted {
					return
				}
			case <-deadline:
				t.Fatal("OnTaskStatus never got the task's completion")
			}
		}
	})
}

// A.9: a client with a task engine runs a task-augmented
// sampling/createMessage as a task, which the server polls with tasks/get
// and fetches with tasks/result.
func TestClientHostedSamplingTaskPolledByTheServer(t *testing.T) {
	forEach(t, []string{mcp.Version20251125}, func(t *testing.T, e env) {
		rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(),
			tasks.WithPollInterval(20*time.Millisecond), tasks.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close(context.Background()) })
		a := &answerer{}
		opts := a.options()
		opts.Tasks = rt
		s, tp := e.connect(t, opts)
		got := outText(t, callTool(t, s, "client_task_sample", ""))
		if !strings.HasPrefix(got, "client task ") || !strings.HasSuffix(got, " completed: 4") {
			t.Fatalf("client_task_sample = %q", got)
		}
		if len(tp.received(mcp.MethodTasksGet)) == 0 || len(tp.received(mcp.MethodTasksResult)) != 1 {
			t.Errorf("the server sent %d tasks/get and %d tasks/result, want some and one",
				len(tp.received(mcp.MethodTasksGet)), len(tp.received(mcp.MethodTasksResult)))
		}
	})
}

// A.7 "Any task retrievable via tasks/get MUST also appear in tasks/list for
// that requestor": the client lists the tasks it started (2025-11-25 only;
// the extension has no tasks/list).
func TestTasksListedByTheClient(t *testing.T) {
	forEach(t, []string{mcp.Version20251125}, func(t *testing.T, e env) {
		s, _ := e.connect(t, nil)
		want := map[string]bool{}
		for _, text := range []string{"one", "two", "three"} {
			h := startTask(t, s, "task_echo", `{"text":"`+text+`"}`)
			if _, err := h.Wait(ctxFor(t)); err != nil {
				t.Fatal(err)
			}
			want[h.ID()] = true
		}
		for st, err := range s.Tasks(ctxFor(t)) {
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != mcp.TaskCompleted {
				t.Errorf("task %s is %s, want completed", st.ID, st.Status)
			}
			delete(want, st.ID)
		}
		if len(want) != 0 {
			t.Errorf("tasks/list left out %v", slices.Collect(maps.Keys(want)))
		}
	})
}
