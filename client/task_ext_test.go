package client

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// The client side of the io.modelcontextprotocol/tasks extension
// (tasks.md part B), against a fake 2026-07-28 server.

// B.1: "A client that declared the capability MUST handle either
// CallToolResult or CreateTaskResult": a created task is polled with
// tasks/get until it completes, and its inlined result is the call's.
func TestDeclaringClientMustHandleACreatedTask(t *testing.T) {
	gets := &script{answers: []handlerFunc{
		fixed(extGot("t-1", mcp.TaskWorking, 20, nil)),
		fixed(extGot("t-1", mcp.TaskCompleted, 20, func(d *mcp.DetailedTask) { d.TaskResult = toolResult("done", false) })),
	}}
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsCall: fixed(extCreated("t-1", 20)),
		mcp.MethodTasksGet:  gets.answer(),
	})
	h, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if h.ID() != "t-1" {
		t.Fatalf("ID = %q, want t-1", h.ID())
	}
	res, err := h.Wait(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "done" {
		t.Errorf("result %q, want done", got)
	}
	if !declaresTasks(t, p.requests(mcp.MethodToolsCall)[0]) {
		t.Error("the tools/call that accepts a task does not declare the tasks extension")
	}
	if n := len(p.requests(mcp.MethodTasksGet)); n != 2 {
		t.Errorf("%d tasks/get, want 2 (working, then completed)", n)
	}
}

// B.1 (promotion): the server decides; a fast call answered at once gives a
// handle that is already complete and polls nothing.
func TestDeclaringClientMustHandleAnImmediateResult(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{mcp.MethodToolsCall: raw(completeToolResult)})
	h, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "fast"})
	if err != nil {
		t.Fatal(err)
	}
	if h.ID() != "" {
		t.Errorf("ID = %q for a call answered at once, want empty", h.ID())
	}
	for _, get := range []func(context.Context) (*mcp.CallToolResult, error){h.Wait, h.Result} {
		res, err := get(testCtx(t))
		if err != nil || resultText(t, res) != "ok" {
			t.Fatalf("= %+v, %v; want the immediate result", res, err)
		}
	}
	if st, err := h.Status(testCtx(t)); err != nil || st.Status != mcp.TaskCompleted || !strings.Contains(string(st.Result), `"ok"`) {
		t.Errorf("Status = %+v, %v; want completed with the result", st, err)
	}
	if err := h.Cancel(testCtx(t)); err != nil {
		t.Errorf("Cancel = %v, want nil: nothing to cancel", err)
	}
	if got := p.methods(); slices.ContainsFunc(got, func(m string) bool { return strings.HasPrefix(m, "tasks/") }) {
		t.Errorf("the client sent %v for a call answered at once", got)
	}
}

// CallTool with WithTask waits for a task transparently; without it a
// modern call declares no tasks extension, so a server must not create one.
func TestCallToolWithTaskWaitsForTheTask(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsCall: fixed(extCreated("t-2", 10)),
		mcp.MethodTasksGet:  fixed(extGot("t-2", mcp.TaskCompleted, 10, func(d *mcp.DetailedTask) { d.TaskResult = toolResult("waited", false) })),
	})
	res, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "slow"}, WithTask())
	if err != nil || resultText(t, res) != "waited" {
		t.Fatalf("CallTool = %+v, %v; want the task's result", res, err)
	}
	p.handlers[mcp.MethodToolsCall] = raw(completeToolResult)
	if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "plain"}); err != nil {
		t.Fatal(err)
	}
	calls := p.requests(mcp.MethodToolsCall)
	if !declaresTasks(t, calls[0]) || declaresTasks(t, calls[1]) {
		t.Errorf("declares tasks: WithTask %v, plain %v; want true, false", declaresTasks(t, calls[0]), declaresTasks(t, calls[1]))
	}
}

// CallTool with WithTask hands out no handle, so when its context ends
// nobody could cancel the task it started, which would run on until its
// TTL: the abandoned call cancels it with tasks/cancel, in both eras, as
// an ordinary call is abandoned with notifications/cancelled.
func TestCallToolWithTaskCancelsItsTaskWhenItsContextEnds(t *testing.T) {
	for _, era := range []struct {
		name           string
		legacy         bool
		created, doing handlerFunc
	}{
		{"extension", false, fixed(extCreated("t-20", 10)), fixed(extGot("t-20", mcp.TaskWorking, 60_000, nil))},
		{"2025-11-25", true, created("t-20", 10), legacyGot("t-20", mcp.TaskWorking, 60_000)},
	} {
		t.Run(era.name, func(t *testing.T) {
			polled, cancelled := make(chan struct{}, 1), make(chan string, 1)
			handlers := map[string]handlerFunc{
				mcp.MethodToolsCall: era.created,
				mcp.MethodTasksGet: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					select {
					case polled <- struct{}{}:
					default:
					}
					return era.doing(ctx, req)
				},
				mcp.MethodTasksCancel: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					cancelled <- taskIDOf(t, req)
					if era.legacy {
						return &mcp.CancelTaskResult{Task: legacyTask("t-20", mcp.TaskCancelled, 10)}, nil
					}
					return &mcp.ExtCancelTaskResult{ResultType: mcp.ResultComplete}, nil
				},
			}
			var s *Session
			if era.legacy {
				s, _ = legacyConnect(t, nil, true, handlers)
			} else {
				s, _ = connect(t, nil, handlers)
			}
			ctx, cancel := context.WithCancel(testCtx(t))
			go func() {
				<-polled
				cancel()
			}()
			if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "optional"}, WithTask()); !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool = %v, want context.Canceled", err)
			}
			select {
			case id := <-cancelled:
				if id != "t-20" {
					t.Errorf("tasks/cancel named task %q, want t-20", id)
				}
			case <-testCtx(t).Done():
				t.Fatal("the task of the abandoned call was not cancelled")
			}
		})
	}
}

// B.1: "A CreateTaskResult received for an unsupported request type MUST be
// treated as an invalid response": a call that did not declare the
// extension, and a method that cannot be a task.
func TestCreateTaskResultOnARequestThatCannotBeATaskIsInvalid(t *testing.T) {
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsCall:     fixed(extCreated("t-3", 0)),
		mcp.MethodResourcesRead: fixed(extCreated("t-3", 0)),
	})
	if _, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "x"}); err == nil || !strings.Contains(err.Error(), "invalid") {
		t.Errorf("CallTool without WithTask = %v, want an invalid-answer error", err)
	}
	if _, err := s.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: "res://x"}); err == nil || !strings.Contains(err.Error(), "invalid") {
		t.Errorf("ReadResource = %v, want an invalid-answer error", err)
	}
}

// B.5: every tasks/* request carries the extension in its _meta client
// capabilities (else the server answers -32021), and the taskId that the
// HTTP transport mirrors into Mcp-Name.
func TestEveryTasksRequestDeclaresTheExtension(t *testing.T) {
	s, p := connect(t, &Options{ElicitForm: acceptOnly}, map[string]handlerFunc{
		mcp.MethodTasksGet: (&script{answers: []handlerFunc{
			fixed(extGot("t-4", mcp.TaskInputRequired, 10, func(d *mcp.DetailedTask) {
				d.InputRequests = inputRequests(t, "k1")
			})),
			fixed(extGot("t-4", mcp.TaskCancelled, 10, nil)),
		}}).answer(),
		mcp.MethodTasksUpdate: fixed(&mcp.Result{ResultType: mcp.ResultComplete}),
		mcp.MethodTasksCancel: fixed(&mcp.Result{ResultType: mcp.ResultComplete}),
	})
	h := s.Task("t-4")
	if _, err := h.Wait(testCtx(t)); !errors.Is(err, ErrTaskCancelled) {
		t.Fatalf("Wait = %v, want ErrTaskCancelled", err)
	}
	if err := h.Cancel(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksCancel} {
		reqs := p.requests(m)
		if len(reqs) == 0 {
			t.Fatalf("no %s was sent", m)
		}
		for _, r := range reqs {
			if !declaresTasks(t, r) || taskIDOf(t, r) != "t-4" {
				t.Errorf("%s %s: declares tasks %v, taskId %q; want true, t-4", m, r.Params, declaresTasks(t, r), taskIDOf(t, r))
			}
		}
	}
}

// inputRequests builds an elicitation input request for each key.
func inputRequests(t *testing.T, keys ...string) mcp.InputRequests {
	t.Helper()
	reqs := mcp.InputRequests{}
	for _, k := range keys {
		r, err := mcp.NewInputRequest(mcp.MethodElicitationCreate, &mcp.ElicitParams{Message: "answer " + k, RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
		if err != nil {
			t.Fatal(err)
		}
		reqs[k] = r
	}
	return reqs
}

// B.6: "Clients SHOULD respect pollIntervalMs": the polls come no faster
// than the interval the server suggests, counted from the creation.
func TestWaitRespectsPollIntervalMs(t *testing.T) {
	const interval = 150 * time.Millisecond
	gets := &script{answers: []handlerFunc{
		fixed(extGot("t-5", mcp.TaskWorking, interval.Milliseconds(), nil)),
		fixed(extGot("t-5", mcp.TaskWorking, interval.Milliseconds(), nil)),
		fixed(extGot("t-5", mcp.TaskCompleted, interval.Milliseconds(), func(d *mcp.DetailedTask) { d.TaskResult = toolResult("ok", false) })),
	}}
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsCall: fixed(extCreated("t-5", interval.Milliseconds())),
		mcp.MethodTasksGet:  gets.answer(),
	})
	h, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	if _, err := h.Wait(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	times := append([]time.Time{created}, gets.times()...)
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < interval {
			t.Errorf("poll %d came %v after the previous one, sooner than pollIntervalMs %v", i, gap, interval)
		}
	}
}

// Without a suggested interval, polls back off: each gap is at least
// double the last, from 100 ms.
func TestWaitBacksOffWithoutAPollInterval(t *testing.T) {
	gets := &script{answers: []handlerFunc{
		fixed(extGot("t-6", mcp.TaskWorking, 0, nil)),
		fixed(extGot("t-6", mcp.TaskWorking, 0, nil)),
		fixed(extGot("t-6", mcp.TaskWorking, 0, nil)),
		fixed(extGot("t-6", mcp.TaskCompleted, 0, func(d *mcp.DetailedTask) { d.TaskResult = toolResult("ok", false) })),
	}}
	s, _ := connect(t, nil, map[string]handlerFunc{mcp.MethodTasksGet: gets.answer()})
	if _, err := s.Task("t-6").Wait(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	times := gets.times()
	for i, want := range []time.Duration{taskPollFirst, 2 * taskPollFirst, 4 * taskPollFirst} {
		if gap := times[i+1].Sub(times[i]); gap < want {
			t.Errorf("gap %d = %v, want at least %v", i+1, gap, want)
		}
	}
}

// B.7: a client seeing input_required "MUST inspect inputRequests", answers
// with tasks/update under the same keys, and "SHOULD de-duplicate keys
// across polls": a key tasks/get still shows after its answer went out is
// not answered again, while a new one is.
func TestInputRequestsAreAnsweredWithTasksUpdateOncePerKey(t *testing.T) {
	var asked atomic.Int32
	elicit := func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: mcp.JSONObject{"for": stdjson.RawMessage(`"` + p.Message + `"`)}}, nil
	}
	gets := &script{answers: []handlerFunc{
		fixed(extGot("t-7", mcp.TaskInputRequired, 10, func(d *mcp.DetailedTask) { d.InputRequests = inputRequests(t, "a") })),
		// The answer to a has not shown yet; b is new.
		fixed(extGot("t-7", mcp.TaskInputRequired, 10, func(d *mcp.DetailedTask) { d.InputRequests = inputRequests(t, "a", "b") })),
		fixed(extGot("t-7", mcp.TaskCompleted, 10, func(d *mcp.DetailedTask) { d.TaskResult = toolResult("answered", false) })),
	}}
	var mu sync.Mutex
	var updates []mcp.InputResponses
	s, _ := connect(t, &Options{ElicitForm: elicit}, map[string]handlerFunc{
		mcp.MethodTasksGet: gets.answer(),
		mcp.MethodTasksUpdate: func(_ context.Context, req *jsonrpc.Request) (any, error) {
			var up mcp.UpdateTaskParams
			if err := json.Unmarshal(req.Params, &up); err != nil {
				return nil, err
			}
			mu.Lock()
			updates = append(updates, up.InputResponses)
			mu.Unlock()
			return &mcp.Result{ResultType: mcp.ResultComplete}, nil
		},
	})
	res, err := s.Task("t-7").Wait(testCtx(t))
	if err != nil || resultText(t, res) != "answered" {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) != 2 || !slices.Equal(slices.Sorted(maps.Keys(updates[0])), []string{"a"}) || !slices.Equal(slices.Sorted(maps.Keys(updates[1])), []string{"b"}) {
		t.Fatalf("tasks/update sent %v, want {a} then {b}", updates)
	}
	if got := string(updates[1]["b"]); !strings.Contains(got, `"answer b"`) || !strings.Contains(got, `"accept"`) {
		t.Errorf("the answer to b is %s, want the handler's accept for it", got)
	}
	if asked.Load() != 2 {
		t.Errorf("the handler was asked %d times, want 2", asked.Load())
	}
}

// An input request the client cannot answer ends Wait with an
// *InputError; the key is not taken as answered, and nothing is sent.
func TestUnanswerableInputRequestEndsWait(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodTasksGet: fixed(extGot("t-8", mcp.TaskInputRequired, 10, func(d *mcp.DetailedTask) { d.InputRequests = inputRequests(t, "k") })),
	})
	_, err := s.Task("t-8").Wait(testCtx(t))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Key != "k" || !errors.Is(err, ErrNoHandler) {
		t.Fatalf("Wait = %v, want an *InputError for k wrapping ErrNoHandler", err)
	}
	if n := len(p.requests(mcp.MethodTasksUpdate)); n != 0 {
		t.Errorf("%d tasks/update sent without answers", n)
	}
}

// B.6: a task whose request ended in a JSON-RPC error is failed with that
// error inlined; Wait surfaces it, not a generic failure.
func TestFailedTaskSurfacesItsJSONRPCError(t *testing.T) {
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodTasksGet: fixed(extGot("t-9", mcp.TaskFailed, 10, func(d *mcp.DetailedTask) {
			d.StatusMessage = "Tool execution failed: rate limited"
			d.Error = &jsonrpc.Error{Code: -32000, Message: "API rate limit exceeded", Data: stdjson.RawMessage(`{"retryAfter":30}`)}
		})),
	})
	_, err := s.Task("t-9").Wait(testCtx(t))
	var tf *TaskFailedError
	if !errors.As(err, &tf) || tf.TaskID != "t-9" || tf.StatusMessage != "Tool execution failed: rate limited" {
		t.Fatalf("Wait = %v, want a *TaskFailedError for t-9 with the status message", err)
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || string(rpcErr.Data) != `{"retryAfter":30}` {
		t.Errorf("the JSON-RPC error = %+v, want the task's -32000 with its data", rpcErr)
	}
}

// B.6: a tool error (isError) completes the task with that result; Wait
// returns it as CallTool would.
func TestToolErrorIsTheCompletedTasksResult(t *testing.T) {
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodTasksGet: fixed(extGot("t-10", mcp.TaskCompleted, 10, func(d *mcp.DetailedTask) { d.TaskResult = toolResult("no such file", true) })),
	})
	res, err := s.Task("t-10").Wait(testCtx(t))
	if err != nil || !res.IsError || resultText(t, res) != "no such file" {
		t.Fatalf("Wait = %+v, %v; want the isError result", res, err)
	}
}

// B.8: cancellation goes through tasks/cancel; "notifications/cancelled
// MUST NOT be used to cancel a task". Cancelling ends no Wait by itself:
// the task's status does.
func TestCancelUsesTasksCancelNotNotificationsCancelled(t *testing.T) {
	var cancelled atomic.Bool
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsCall: fixed(extCreated("t-11", 10)),
		mcp.MethodTasksGet: func(context.Context, *jsonrpc.Request) (any, error) {
			if cancelled.Load() {
				return extGot("t-11", mcp.TaskCancelled, 10, func(d *mcp.DetailedTask) { d.StatusMessage = "stopped by the user" }), nil
			}
			return extGot("t-11", mcp.TaskWorking, 10, nil), nil
		},
		mcp.MethodTasksCancel: func(context.Context, *jsonrpc.Request) (any, error) {
			cancelled.Store(true)
			return &mcp.Result{ResultType: mcp.ResultComplete}, nil
		},
	})
	h, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() {
		_, err := h.Wait(testCtx(t))
		waited <- err
	}()
	if err := h.Cancel(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; !errors.Is(err, ErrTaskCancelled) || !strings.Contains(err.Error(), "stopped by the user") {
		t.Fatalf("Wait = %v, want ErrTaskCancelled with the status message", err)
	}
	p.drained(s)
	if slices.Contains(p.methods(), mcp.NotificationCancelled) {
		t.Errorf("the client sent notifications/cancelled: %v", p.methods())
	}
}

// When Wait's context ends, Wait returns and the task runs on: nothing is
// cancelled on the server.
func TestWaitEndsWithItsContextAndLeavesTheTaskRunning(t *testing.T) {
	polled := make(chan struct{}, 1)
	s, p := connect(t, nil, map[string]handlerFunc{
		mcp.MethodTasksGet: func(context.Context, *jsonrpc.Request) (any, error) {
			select {
			case polled <- struct{}{}:
			default:
			}
			return extGot("t-12", mcp.TaskWorking, 60_000, nil), nil
		},
	})
	ctx, cancel := context.WithCancelCause(testCtx(t))
	go func() {
		<-polled
		cancel(errors.New("the user closed the window"))
	}()
	_, err := s.Task("t-12").Wait(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "the user closed the window") {
		t.Fatalf("Wait = %v, want context.Canceled with the cause", err)
	}
	p.drained(s)
	if got := p.methods(); slices.Contains(got, mcp.MethodTasksCancel) {
		t.Errorf("the client cancelled the task: %v", got)
	}
	// The context may end while a poll is in flight: abandoning that poll
	// (notifications/cancelled naming the tasks/get) is allowed; cancelling
	// anything else is not.
	var polls []string
	for _, r := range p.requests(mcp.MethodTasksGet) {
		polls = append(polls, r.ID.String())
	}
	for _, n := range p.notifications(mcp.NotificationCancelled) {
		var c mcp.CancelledNotificationParams
		if err := json.Unmarshal(n.Params, &c); err != nil || !slices.Contains(polls, c.RequestID.String()) {
			t.Errorf("the client cancelled request %s, which is no tasks/get poll (polls %v; decode error %v)", n.Params, polls, err)
		}
	}
}

// B.6: "Clients SHOULD persist task IDs so they can resume after a crash":
// a handle made from the bare ID in a new session finds the task.
func TestHandleRecreatedFromABareIDInANewSession(t *testing.T) {
	first, _ := connect(t, nil, map[string]handlerFunc{mcp.MethodToolsCall: fixed(extCreated("t-13", 10))})
	h, err := first.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	saved := h.ID()
	first.Close()

	second, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodTasksGet: func(_ context.Context, req *jsonrpc.Request) (any, error) {
			if id := taskIDOf(t, req); id != saved {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown task %s", id)
			}
			return extGot(saved, mcp.TaskCompleted, 10, func(d *mcp.DetailedTask) { d.TaskResult = toolResult("resumed", false) }), nil
		},
	})
	res, err := second.Task(saved).Wait(testCtx(t))
	if err != nil || resultText(t, res) != "resumed" {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
}

// B.12: an unknown or expired task is -32602; the error says so and keeps
// the server's error.
func TestUnknownTaskIsAnInvalidParamsError(t *testing.T) {
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodTasksGet: failing(jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Task not found")),
	})
	_, err := s.Task("gone").Status(testCtx(t))
	if codeOf(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "does not know the task") {
		t.Fatalf("Status = %v, want the server's -32602, explained", err)
	}
}

// B.9: notifications/tasks arrive on a subscriptions/listen stream whose
// filter names the task (the listen declares the extension); they reach
// OnTaskStatus and wake Wait long before its next poll.
func TestNotificationsTasksWakeWait(t *testing.T) {
	states := make(chan *TaskState, 4)
	var done atomic.Bool
	polled := make(chan struct{}, 8)
	s, p := connect(t, &Options{OnTaskStatus: func(_ context.Context, st *TaskState) { states <- st }}, map[string]handlerFunc{
		mcp.MethodTasksGet: func(context.Context, *jsonrpc.Request) (any, error) {
			polled <- struct{}{}
			if done.Load() {
				return extGot("t-14", mcp.TaskCompleted, 60_000, func(d *mcp.DetailedTask) { d.TaskResult = toolResult("woken", false) }), nil
			}
			return extGot("t-14", mcp.TaskWorking, 60_000, nil), nil
		},
	})
	ids := make(chan jsonrpc.ID, 1)
	listenServer(t, p, ids, nil)
	sub, err := s.Listen(testCtx(t), mcp.SubscriptionFilter{TaskIDs: []string{"t-14"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	listen := p.requests(mcp.MethodSubscriptionsListen)[0]
	if !declaresTasks(t, listen) {
		t.Error("a listen with taskIds does not declare the tasks extension")
	}
	subID := <-ids
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	waited := make(chan outcome, 1)
	go func() {
		res, err := s.Task("t-14").Wait(testCtx(t))
		waited <- outcome{res, err}
	}()
	<-polled // Wait now sleeps for a minute, unless woken
	done.Store(true)
	n := &mcp.ExtTaskStatusNotificationParams{}
	n.ExtTask = extTask("t-14", mcp.TaskCompleted, 60_000)
	n.TaskResult = toolResult("woken", false)
	n.Meta.Set(mcp.MetaSubscriptionID, subID)
	if err := p.conn.Notify(testCtx(t), mcp.NotificationTasks, n); err != nil {
		t.Fatal(err)
	}
	if o := <-waited; o.err != nil || resultText(t, o.res) != "woken" {
		t.Fatalf("Wait = %+v, %v; want the woken result", o.res, o.err)
	}
	st := <-states
	if st.ID != "t-14" || st.Status != mcp.TaskCompleted || !strings.Contains(string(st.Result), "woken") {
		t.Errorf("OnTaskStatus got %+v", st)
	}
}

// B.11: input asked for with input_required before the task exists is
// answered by re-sending tools/call; the final round may create the task.
func TestInputBeforeTheTaskIsCreatedIsAnsweredByRetrying(t *testing.T) {
	s, p := connect(t, &Options{ElicitForm: acceptOnly}, map[string]handlerFunc{
		mcp.MethodToolsCall: func(_ context.Context, req *jsonrpc.Request) (any, error) {
			if retryParams(t, req).InputResponses == nil {
				return inputRequired(t, "round-1", map[string]any{"elicit": &mcp.ElicitParams{Message: "name?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}}}), nil
			}
			return extCreated("t-15", 10), nil
		},
		mcp.MethodTasksGet: fixed(extGot("t-15", mcp.TaskCompleted, 10, func(d *mcp.DetailedTask) { d.TaskResult = toolResult("Alice", false) })),
	})
	res, err := s.CallTool(testCtx(t), &mcp.CallToolParams{Name: "test_tool_with_task"}, WithTask())
	if err != nil || resultText(t, res) != "Alice" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	calls := p.requests(mcp.MethodToolsCall)
	if len(calls) != 2 || calls[0].ID == calls[1].ID || retryParams(t, calls[1]).RequestState != "round-1" {
		t.Errorf("tools/call rounds: %d, ids %v; want 2 with new ids and the state echoed", len(calls), []jsonrpc.ID{calls[0].ID, calls[len(calls)-1].ID})
	}
}

// A task the server describes in a way no task can be is an error, not a
// task: a created task needs an ID and a known status.
func TestMalformedTasksAreRejected(t *testing.T) {
	bad := extCreated("", 10)
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodToolsCall: fixed(bad),
		mcp.MethodTasksGet:  fixed(extGot("t-16", "sleeping", 10, nil)),
	})
	if _, err := s.CallToolAsTask(testCtx(t), &mcp.CallToolParams{Name: "x"}); err == nil || !strings.Contains(err.Error(), "without a taskId") {
		t.Errorf("CallToolAsTask = %v, want an error about the missing taskId", err)
	}
	if _, err := s.Task("t-16").Status(testCtx(t)); err == nil || !strings.Contains(err.Error(), `"sleeping"`) {
		t.Errorf("Status = %v, want an error naming the status", err)
	}
}

// A completed extension task whose inlined result is not a tools/call
// result (no content) is an error, never an empty result with no error.
func TestCompletedTaskWithoutContentIsAnError(t *testing.T) {
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodTasksGet: fixed(extGot("t-9", mcp.TaskCompleted, 20, func(d *mcp.DetailedTask) {
			d.TaskResult = stdjson.RawMessage(`{"_meta":{}}`)
		})),
	})
	res, err := s.Task("t-9").Result(testCtx(t))
	if err == nil || !strings.Contains(err.Error(), "no content array") {
		t.Fatalf("Result = %+v, %v; want an error saying the result has no content", res, err)
	}
}
