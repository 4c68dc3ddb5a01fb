package client

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// The client side of the 2025-11-25 tasks (tasks.md part A), against a fake
// server.

// legacyInit answers initialize at 2025-11-25, declaring task-augmented
// tools/call when tasks is set.
func legacyInit(tasks bool) handlerFunc {
	return func(context.Context, *jsonrpc.Request) (any, error) {
		res := &mcp.InitializeResult{
			ProtocolVersion: mcp.Version20251125,
			ServerInfo:      mcp.Implementation{Name: "legacy-tasks", Version: "1"},
			Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ToolsCapability{}},
		}
		if tasks {
			res.Capabilities.Tasks = &mcp.ServerTasksCapability{List: mcp.JSONObject{}, Cancel: mcp.JSONObject{},
				Requests: &mcp.ServerTaskRequests{Tools: &mcp.ToolsTaskRequests{Call: mcp.JSONObject{}}}}
		}
		return res, nil
	}
}

// legacyTools answers tools/list with a tool per task support level
// ("none" declares no execution at all).
func legacyTools(context.Context, *jsonrpc.Request) (any, error) {
	res := &mcp.ListToolsResult{}
	for _, ts := range []mcp.TaskSupport{"none", mcp.TaskSupportForbidden, mcp.TaskSupportOptional, mcp.TaskSupportRequired} {
		tool := mcp.Tool{Name: string(ts), InputSchema: []byte(`{"type":"object"}`)}
		if ts != "none" {
			tool.Execution = &mcp.ToolExecution{TaskSupport: ts}
		}
		res.Tools = append(res.Tools, tool)
	}
	return res, nil
}

// legacyConnect connects at 2025-11-25 to a fake server with handlers.
func legacyConnect(t *testing.T, opts *Options, tasks bool, handlers map[string]handlerFunc) (*Session, *peer) {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.ProtocolVersion = mcp.Version20251125
	handlers[mcp.MethodInitialize] = legacyInit(tasks)
	if handlers[mcp.MethodToolsList] == nil {
		handlers[mcp.MethodToolsList] = legacyTools
	}
	return connect(t, &o, handlers)
}

// created answers a task-augmented call with a nested CreateTaskResult.
func created(id string, pollMs int64) handlerFunc {
	res := &mcp.CreateTaskResult{Task: legacyTask(id, mcp.TaskWorking, pollMs)}
	res.Meta.Set(mcp.MetaModelImmediateResponse, "Started; I'll report back.")
	return fixed(res)
}

// legacyGot answers tasks/get with the flat task in status st.
func legacyGot(id string, st mcp.TaskStatus, pollMs int64) handlerFunc {
	return fixed(&mcp.GetTaskResult{Task: legacyTask(id, st, pollMs)})
}

// toolParams decodes a tools/call request's params.
func toolParams(t *testing.T, req *jsonrpc.Request) mcp.CallToolParams {
	t.Helper()
	var p mcp.CallToolParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// A.4/A.5: a task-augmented tools/call carries the task parameter with the
// requested ttl in milliseconds; the answer nests the task under "task";
// the outcome comes from tasks/result once tasks/get says it finished.
func TestAugmentedCallCarriesTheTaskParameterAndGetsANestedTask(t *testing.T) {
	s, p := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodToolsCall: created("l-1", 10),
		mcp.MethodTasksGet: (&script{answers: []handlerFunc{
			legacyGot("l-1", mcp.TaskWorking, 10),
			legacyGot("l-1", mcp.TaskCompleted, 10),
		}}).answer(),
		mcp.MethodTasksResult: fixed(toolResult("legacy done", false)),
	})
	h, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "optional"}, WithTaskTTL(90_000_000_000))
	if err != nil {
		t.Fatal(err)
	}
	if h.ID() != "l-1" || h.ImmediateResponse() != "Started; I'll report back." {
		t.Errorf("ID %q, immediate response %q", h.ID(), h.ImmediateResponse())
	}
	res, err := h.Wait(testCtx(t))
	if err != nil || resultText(t, res) != "legacy done" {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	call := toolParams(t, p.requests(mcp.MethodToolsCall)[0])
	if call.Task == nil || call.Task.TTL == nil || *call.Task.TTL != 90_000 {
		t.Errorf("tools/call task = %+v, want ttl 90000 ms", call.Task)
	}
	if got := len(p.requests(mcp.MethodTasksGet)); got != 2 || len(p.requests(mcp.MethodTasksResult)) != 1 {
		t.Errorf("%d tasks/get and %d tasks/result, want 2 and 1", got, len(p.requests(mcp.MethodTasksResult)))
	}
}

// A.3 rule 1: "If the server lacks tasks.requests.tools.call, clients MUST
// NOT task-augment any tool": CallToolAsTask refuses without sending
// anything, and CallTool with WithTask makes an ordinary call.
func TestClientMustNotAugmentWithoutTheServersCapability(t *testing.T) {
	s, p := legacyConnect(t, nil, false, map[string]handlerFunc{mcp.MethodToolsCall: fixed(toolResult("plain", false))})
	if _, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "required"}); !errors.Is(err, ErrTaskNotSupported) {
		t.Fatalf("CallToolAsTask = %v, want ErrTaskNotSupported", err)
	}
	if len(p.requests(mcp.MethodToolsCall)) != 0 {
		t.Fatal("a tools/call went out")
	}
	res, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "optional"}, WithTask())
	if err != nil || resultText(t, res) != "plain" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if call := toolParams(t, p.requests(mcp.MethodToolsCall)[0]); call.Task != nil {
		t.Errorf("tools/call carried task %+v", call.Task)
	}
}

// A.3 rule 2: "taskSupport absent or forbidden: clients MUST NOT augment".
// The tool is looked up with tools/list when the session has not listed it.
func TestClientMustNotAugmentAToolThatForbidsIt(t *testing.T) {
	s, p := legacyConnect(t, nil, true, map[string]handlerFunc{mcp.MethodToolsCall: fixed(toolResult("plain", false))})
	for _, name := range []string{"none", "forbidden"} {
		if _, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: name}); !errors.Is(err, ErrTaskNotSupported) {
			t.Errorf("CallToolAsTask(%s) = %v, want ErrTaskNotSupported", name, err)
		}
		if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: name}, WithTask()); err != nil {
			t.Errorf("CallTool(%s, WithTask) = %v", name, err)
		}
	}
	for _, r := range p.requests(mcp.MethodToolsCall) {
		if call := toolParams(t, r); call.Task != nil {
			t.Errorf("tools/call %s carried task %+v", call.Name, call.Task)
		}
	}
	if n := len(p.requests(mcp.MethodToolsList)); n != 1 {
		t.Errorf("tools/list sent %d times, want once: what was listed is remembered", n)
	}
	if _, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "nope"}); err == nil || !strings.Contains(err.Error(), `no tool named "nope"`) {
		t.Errorf("CallToolAsTask of an unlisted tool = %v", err)
	}
}

// A.3: "required: clients MUST augment". CallTool does so by itself for a
// listed required tool, and waits.
func TestClientMustAugmentAToolThatRequiresIt(t *testing.T) {
	s, p := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodToolsCall:   created("l-2", 10),
		mcp.MethodTasksGet:    legacyGot("l-2", mcp.TaskCompleted, 10),
		mcp.MethodTasksResult: fixed(toolResult("required done", false)),
	})
	for _, err := range s.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "required"})
	if err != nil || resultText(t, res) != "required done" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if call := toolParams(t, p.requests(mcp.MethodToolsCall)[0]); call.Task == nil || call.Task.TTL != nil {
		t.Errorf("tools/call task = %+v, want a task parameter leaving the ttl to the server", call.Task)
	}
}

// A.7: seeing input_required, the requestor "SHOULD pre-emptively call
// tasks/result", during which the server sends its request carrying the
// related-task _meta; the handler sees that _meta, and the answer carries it
// back, as every response related to a task must.
func TestInputRequiredIsServedDuringTasksResult(t *testing.T) {
	related := make(chan string, 1)
	elicit := func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		rt, err := p.Meta.RelatedTask()
		if err != nil {
			return nil, err
		}
		related <- rt.TaskID
		return &mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
	}
	s, p := legacyConnect(t, &Options{ElicitForm: elicit}, true, map[string]handlerFunc{
		mcp.MethodToolsCall: created("l-3", 10),
		mcp.MethodTasksGet:  legacyGot("l-3", mcp.TaskInputRequired, 10),
	})
	answers := make(chan mcp.ElicitResult, 1)
	p.handlers[mcp.MethodTasksResult] = func(ctx context.Context, _ *jsonrpc.Request) (any, error) {
		q := &mcp.ElicitParams{Message: "confirm?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}}
		q.Meta.Set(mcp.MetaRelatedTask, mcp.RelatedTaskMetadata{TaskID: "l-3"})
		var res mcp.ElicitResult
		if err := p.conn.Call(ctx, mcp.MethodElicitationCreate, q, &res); err != nil {
			return nil, err
		}
		answers <- res
		return toolResult("confirmed", false), nil
	}
	res, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "optional"}, WithTask())
	if err != nil || resultText(t, res) != "confirmed" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	if id := <-related; id != "l-3" {
		t.Errorf("the handler saw related task %q, want l-3", id)
	}
	answer := <-answers
	if rt, err := answer.Meta.RelatedTask(); err != nil || rt.TaskID != "l-3" || answer.Action != mcp.ElicitAccept {
		t.Errorf("the answer %+v carries related task %+v (%v), want l-3", answer, rt, err)
	}
}

// A.7/A.8: tasks/result of a failed task returns the request's own JSON-RPC
// error; Wait surfaces it as a *TaskFailedError with the status message.
func TestTasksResultErrorSurfacesAsTaskFailedError(t *testing.T) {
	failed := fixed(&mcp.GetTaskResult{Task: func() mcp.Task {
		task := legacyTask("l-4", mcp.TaskFailed, 10)
		task.StatusMessage = "Tool execution failed: quota"
		return task
	}()})
	s, _ := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodTasksGet:    failed,
		mcp.MethodTasksResult: failing(&jsonrpc.Error{Code: -32000, Message: "quota exceeded"}),
	})
	_, err := s.Task("l-4").Wait(testCtx(t))
	var tf *TaskFailedError
	if !errors.As(err, &tf) || tf.StatusMessage != "Tool execution failed: quota" || codeOf(err) != -32000 {
		t.Fatalf("Wait = %v, want a *TaskFailedError with the status message and the -32000", err)
	}
}

// A.7: in 2025-11-25 a tool error makes the task failed, and tasks/result
// still returns the tool's result: Wait returns it, as the extension's
// completed task would.
func TestToolErrorOfAFailedLegacyTaskIsItsResult(t *testing.T) {
	s, _ := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodTasksGet:    legacyGot("l-5", mcp.TaskFailed, 10),
		mcp.MethodTasksResult: fixed(toolResult("bad input", true)),
	})
	res, err := s.Task("l-5").Wait(testCtx(t))
	if err != nil || !res.IsError || resultText(t, res) != "bad input" {
		t.Fatalf("Wait = %+v, %v; want the isError result", res, err)
	}
}

// A.7: "Requestors SHOULD honour pollInterval".
func TestWaitHonoursPollInterval(t *testing.T) {
	const interval = 120
	gets := &script{answers: []handlerFunc{
		legacyGot("l-6", mcp.TaskWorking, interval),
		legacyGot("l-6", mcp.TaskWorking, interval),
		legacyGot("l-6", mcp.TaskCompleted, interval),
	}}
	s, _ := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodTasksGet:    gets.answer(),
		mcp.MethodTasksResult: fixed(toolResult("ok", false)),
	})
	if _, err := s.Task("l-6").Wait(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	times := gets.times()
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap.Milliseconds() < interval {
			t.Errorf("poll %d came %v after the previous one, sooner than pollInterval %d ms", i, gap, interval)
		}
	}
}

// A.7: cancellation uses tasks/cancel, whose answer is the cancelled task;
// cancelling a finished task is -32602.
func TestLegacyCancel(t *testing.T) {
	var cancelled atomic.Bool
	s, p := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodTasksCancel: func(context.Context, *jsonrpc.Request) (any, error) {
			if cancelled.Swap(true) {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Cannot cancel task: already in terminal status 'cancelled'")
			}
			return &mcp.CancelTaskResult{Task: legacyTask("l-7", mcp.TaskCancelled, 10)}, nil
		},
		mcp.MethodTasksGet: legacyGot("l-7", mcp.TaskCancelled, 10),
	})
	h := s.Task("l-7")
	if err := h.Cancel(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := h.Cancel(testCtx(t)); codeOf(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("second Cancel = %v, want the server's -32602", err)
	}
	if _, err := h.Wait(testCtx(t)); !errors.Is(err, ErrTaskCancelled) {
		t.Errorf("Wait = %v, want ErrTaskCancelled", err)
	}
	if slices.Contains(p.methods(), mcp.MethodTasksResult) {
		t.Error("the client asked a cancelled task for its result")
	}
}

// A.7: "A cancel request for a task already in a terminal status MUST be
// rejected with -32602": the error of cancelling a finished task says so,
// rather than only that the server does not know the task.
func TestCancellingAFinishedLegacyTaskSaysItHasFinished(t *testing.T) {
	s, _ := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodTasksCancel: failing(jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Cannot cancel task: already in terminal status 'completed'")),
	})
	err := s.Task("l-11").Cancel(testCtx(t))
	if codeOf(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "already finished") {
		t.Errorf("Cancel = %v, want the server's -32602 explained as a task that has already finished", err)
	}
}

// A.7: "Requestors MUST NOT rely on [notifications/tasks/status] and SHOULD
// keep polling"; a notification only wakes Wait early, and reaches
// OnTaskStatus.
func TestTaskStatusNotificationWakesWait(t *testing.T) {
	states := make(chan *TaskState, 1)
	var done atomic.Bool
	polled := make(chan struct{}, 8)
	s, p := legacyConnect(t, &Options{OnTaskStatus: func(_ context.Context, st *TaskState) { states <- st }}, true, map[string]handlerFunc{
		mcp.MethodTasksGet: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			polled <- struct{}{}
			if done.Load() {
				return legacyGot("l-8", mcp.TaskCompleted, 60_000)(ctx, req)
			}
			return legacyGot("l-8", mcp.TaskWorking, 60_000)(ctx, req)
		},
		mcp.MethodTasksResult: fixed(toolResult("notified", false)),
	})
	waited := make(chan error, 1)
	go func() {
		_, err := s.Task("l-8").Wait(testCtx(t))
		waited <- err
	}()
	<-polled
	done.Store(true)
	n := &mcp.TaskStatusNotificationParams{Task: legacyTask("l-8", mcp.TaskCompleted, 60_000)}
	if err := p.conn.Notify(testCtx(t), mcp.NotificationTasksStatus, n); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if st := <-states; st.ID != "l-8" || st.Status != mcp.TaskCompleted || st.PollInterval.Milliseconds() != 60_000 {
		t.Errorf("OnTaskStatus got %+v", st)
	}
}

// A.7: "The original request's progressToken stays valid for the task's
// whole lifetime": progress sent after the task was created still reaches
// the call's handler, until the task has finished.
func TestProgressTokenStaysValidForTheTasksLife(t *testing.T) {
	progress := make(chan string, 4)
	var finished atomic.Bool
	s, p := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodToolsCall:   created("l-9", 10),
		mcp.MethodTasksResult: fixed(toolResult("ok", false)),
		mcp.MethodTasksGet: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if finished.Load() {
				return legacyGot("l-9", mcp.TaskCompleted, 10)(ctx, req)
			}
			return legacyGot("l-9", mcp.TaskWorking, 10)(ctx, req)
		},
	})
	h, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "optional"}, WithProgress(func(n *mcp.ProgressNotificationParams) { progress <- n.Message }))
	if err != nil {
		t.Fatal(err)
	}
	token, err := meta(t, p.requests(mcp.MethodToolsCall)[0]).ProgressToken()
	if err != nil {
		t.Fatal(err)
	}
	n := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Message: "after creation"}
	if err := p.conn.Notify(testCtx(t), mcp.NotificationProgress, n); err != nil {
		t.Fatal(err)
	}
	if got := <-progress; got != "after creation" {
		t.Fatalf("progress %q", got)
	}
	finished.Store(true)
	if _, err := h.Wait(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if s.progress.dispatch(&mcp.ProgressNotificationParams{ProgressToken: token}) {
		t.Error("the call's progress token is still registered after its task finished")
	}
}

// WithProgress promises every notification "before the call returns":
// CallTool with WithTask whose context ends while the task runs on must
// forget its progress handler, which would otherwise hear the task's
// progress after the call returned, and be kept for the session's life.
func TestCallToolWithTaskForgetsItsProgressHandlerWhenItReturns(t *testing.T) {
	polled := make(chan struct{}, 1)
	listChanged := make(chan struct{}, 1)
	s, p := legacyConnect(t, &Options{OnToolsListChanged: func(context.Context, *mcp.ToolListChangedNotificationParams) { listChanged <- struct{}{} }}, true, map[string]handlerFunc{
		mcp.MethodToolsCall: created("l-10", 10),
		mcp.MethodTasksGet: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			select {
			case polled <- struct{}{}:
			default:
			}
			return legacyGot("l-10", mcp.TaskWorking, 60_000)(ctx, req)
		},
	})
	var heard atomic.Int32
	ctx, cancel := context.WithCancel(testCtx(t))
	go func() {
		<-polled
		cancel()
	}()
	_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "optional"}, WithTask(), WithProgress(func(*mcp.ProgressNotificationParams) { heard.Add(1) }))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v, want context.Canceled", err)
	}
	token, err := meta(t, p.requests(mcp.MethodToolsCall)[0]).ProgressToken()
	if err != nil {
		t.Fatal(err)
	}
	n := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Message: "still running"}
	if err := p.conn.Notify(testCtx(t), mcp.NotificationProgress, n); err != nil {
		t.Fatal(err)
	}
	// Notifications are handled in order: once this one is, so is the progress.
	if err := p.conn.Notify(testCtx(t), mcp.NotificationToolsListChanged, &mcp.ToolListChangedNotificationParams{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-listChanged:
	case <-testCtx(t).Done():
		t.Fatal("the client did not handle the notifications")
	}
	if got := heard.Load(); got != 0 {
		t.Errorf("the progress handler heard %d notifications after CallTool returned", got)
	}
	if s.progress.dispatch(n) {
		t.Error("the call's progress token is still registered after CallTool returned")
	}
}

// Versions before 2025-11-25 have no tasks.
func TestTasksBefore20251125AreNotInTheVersion(t *testing.T) {
	s, p := connect(t, &Options{ProtocolVersion: mcp.Version20250618}, nil)
	if _, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "x"}); !errors.Is(err, ErrTaskNotInVersion) {
		t.Errorf("CallToolAsTask = %v, want ErrTaskNotInVersion", err)
	}
	if _, err := s.Task("x").Status(testCtx(t)); !errors.Is(err, ErrTaskNotInVersion) {
		t.Errorf("Status = %v, want ErrTaskNotInVersion", err)
	}
	if got := p.methods(); slices.ContainsFunc(got, func(m string) bool { return m != mcp.MethodInitialize && m != mcp.NotificationInitialized }) {
		t.Errorf("the server received %v", got)
	}
}

// A.7 listing: tasks/list is cursor-based; Tasks follows nextCursor. The
// extension has no tasks/list, and a server that did not declare tasks.list
// is not asked.
func TestTasksListsEveryPage(t *testing.T) {
	s, p := legacyConnect(t, nil, true, map[string]handlerFunc{
		mcp.MethodTasksList: func(_ context.Context, req *jsonrpc.Request) (any, error) {
			var lp mcp.ListTasksParams
			json.Unmarshal(req.Params, &lp)
			if lp.Cursor == "" {
				return &mcp.ListTasksResult{Tasks: []mcp.Task{legacyTask("a", mcp.TaskWorking, 10)}, NextCursor: "page-2"}, nil
			}
			return &mcp.ListTasksResult{Tasks: []mcp.Task{legacyTask("b", mcp.TaskCompleted, 10)}}, nil
		},
	})
	var ids []string
	for st, err := range s.Tasks(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID+":"+string(st.Status))
	}
	if !slices.Equal(ids, []string{"a:working", "b:completed"}) || len(p.requests(mcp.MethodTasksList)) != 2 {
		t.Errorf("Tasks = %v over %d requests, want a and b over 2", ids, len(p.requests(mcp.MethodTasksList)))
	}

	plain, p2 := legacyConnect(t, nil, false, map[string]handlerFunc{})
	if _, _, err := plain.ListTasks(testCtx(t), nil); err == nil || !strings.Contains(err.Error(), "tasks.list") {
		t.Errorf("ListTasks without the capability = %v", err)
	}
	if slices.Contains(p2.methods(), mcp.MethodTasksList) {
		t.Error("a server without tasks.list was asked")
	}
	modern, _ := connect(t, nil, nil)
	if _, _, err := modern.ListTasks(testCtx(t), nil); !errors.Is(err, ErrNotInVersion) {
		t.Errorf("ListTasks on a modern session = %v, want ErrNotInVersion", err)
	}
}

// Result's doc promises ErrTaskCancelled for a cancelled task. A peer that
// answers tasks/result of a cancelled task with only _meta (no content, so
// no tools/call result) must not make Result return an empty result and no
// error: whenever the answer is not a tools/call result, the task's status
// explains it.
func TestTasksResultThatIsNoToolResultIsExplainedByTheStatus(t *testing.T) {
	onlyMeta := raw(`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"l-9"}}}`)
	tests := []struct {
		name   string
		status mcp.TaskStatus
		answer handlerFunc
		gets   int // tasks/get requests Result must send
		check  func(t *testing.T, res *mcp.CallToolResult, err error)
	}{
		{"cancelled, only _meta", mcp.TaskCancelled, onlyMeta, 1, func(t *testing.T, res *mcp.CallToolResult, err error) {
			if !errors.Is(err, ErrTaskCancelled) {
				t.Fatalf("Result = %+v, %v; want ErrTaskCancelled", res, err)
			}
		}},
		{"cancelled, content null", mcp.TaskCancelled, raw(`{"content":null}`), 1, func(t *testing.T, res *mcp.CallToolResult, err error) {
			if !errors.Is(err, ErrTaskCancelled) {
				t.Fatalf("Result = %+v, %v; want ErrTaskCancelled", res, err)
			}
		}},
		{"cancelled, not an object", mcp.TaskCancelled, raw(`[]`), 1, func(t *testing.T, res *mcp.CallToolResult, err error) {
			if !errors.Is(err, ErrTaskCancelled) {
				t.Fatalf("Result = %+v, %v; want ErrTaskCancelled", res, err)
			}
		}},
		{"failed, only _meta", mcp.TaskFailed, onlyMeta, 1, func(t *testing.T, res *mcp.CallToolResult, err error) {
			var tf *TaskFailedError
			if !errors.As(err, &tf) || tf.TaskID != "l-9" {
				t.Fatalf("Result = %+v, %v; want a *TaskFailedError", res, err)
			}
		}},
		{"completed, only _meta", mcp.TaskCompleted, onlyMeta, 1, func(t *testing.T, res *mcp.CallToolResult, err error) {
			if err == nil || !strings.Contains(err.Error(), "no content array") || !strings.Contains(err.Error(), "completed") {
				t.Fatalf("Result = %+v, %v; want an error saying the result has no content", res, err)
			}
		}},
		{"completed, empty content", mcp.TaskCompleted, raw(`{"content":[]}`), 0, func(t *testing.T, res *mcp.CallToolResult, err error) {
			if err != nil || res == nil || len(res.Content) != 0 || res.IsError {
				t.Fatalf("Result = %+v, %v; want the empty result", res, err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p := legacyConnect(t, nil, true, map[string]handlerFunc{
				mcp.MethodTasksGet:    legacyGot("l-9", tt.status, 10),
				mcp.MethodTasksResult: tt.answer,
			})
			res, err := s.Task("l-9").Result(testCtx(t))
			tt.check(t, res, err)
			if gets := len(p.requests(mcp.MethodTasksGet)); gets != tt.gets {
				t.Errorf("Result sent tasks/get %d times; want %d (only for an answer that is not a tools/call result)", gets, tt.gets)
			}
		})
	}
}
