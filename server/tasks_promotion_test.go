package server

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// Promotion: a tool with PromoteAfter runs inline first on a modern request
// that declared the extension; the deadline turns the still-running
// execution into a task without running the tool again.

// promotingServer registers "promoted": it counts its runs, reports
// progress, waits at the gate (honouring its context), then asks for a name
// and returns it, with the given support and deadline.
func promotingServer(t *testing.T, rt *tasks.Runtime, g *gate, support mcp.TaskSupport, after time.Duration) *Server {
	s := taskServer(t, rt, g, nil)
	AddTool(s, &mcp.Tool{Name: "promoted"}, func(ctx context.Context, r *Request, in struct {
		Ask bool `json:"ask,omitempty"`
	}) (string, error) {
		if err := r.Progress(ctx, 1, 0, "starting"); err != nil {
			return "", err
		}
		if err := g.wait(ctx, false); err != nil {
			return "", err
		}
		if !in.Ask {
			return fmt.Sprintf("run %d", g.runs.Load()), nil
		}
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("run %d: %s", g.runs.Load(), field(res, "name")), nil
	}, Tasks(TaskConfig{Support: support, PromoteAfter: after}))
	return s
}

func TestPromotion_FastCallAnswersInline(t *testing.T) {
	g := newGate()
	g.release()
	c := open(t, promotingServer(t, newRuntime(t), g, mcp.TaskSupportOptional, time.Hour), mcp.Version20260728, extCaps, nil)
	raw, err := c.rawCall(mcp.MethodToolsCall, c.withMeta(`{"name":"promoted","arguments":{}}`, `"progressToken":"p"`))
	if err != nil {
		t.Fatal(err)
	}
	if member(t, raw, "resultType") != `"complete"` || text1(t, raw) != "run 1" {
		t.Errorf("a call finished before the deadline answered %s, want its plain result", raw)
	}
	if n := c.nextNote(); n.Method != mcp.NotificationProgress {
		t.Errorf("inline progress went as %s", n.Method)
	}
}

func TestPromotion_SlowCallBecomesATaskWithoutRunningAgain(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, promotingServer(t, rt, g, mcp.TaskSupportOptional, time.Millisecond), mcp.Version20260728, extCaps, nil)
	created := createExtensionTask(t, c, "promoted", `{"ask":true}`)
	g.awaitStart(t)
	// The progress reported inline carries over as the status message.
	awaitMessage(t, rt, "", created.TaskID, "starting")
	g.release()
	// After promotion, the same execution's question goes to the task.
	task := awaitInputs(t, rt, "", created.TaskID, 1)
	c.mustCall(mcp.MethodTasksUpdate, fmt.Sprintf(`{"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"Ada"}}}}`,
		created.TaskID, task.InputRequests[0].Key))
	done := awaitStatus(t, rt, "", created.TaskID, tasks.StatusCompleted)
	if got := text1(t, done.Result); got != "run 1: Ada" {
		t.Errorf("result %q, want the first and only run's", got)
	}
	if n := g.runs.Load(); n != 1 {
		t.Errorf("the tool ran %d times", n)
	}
}

func TestPromotion_CancellingThePromotedTaskEndsTheExecution(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, promotingServer(t, rt, g, mcp.TaskSupportOptional, time.Millisecond), mcp.Version20260728, extCaps, nil)
	created := createExtensionTask(t, c, "promoted", `{}`)
	g.awaitStart(t)
	c.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+created.TaskID+`"}`)
	if cause := g.awaitEnd(t); cause != tasks.ErrCancelled {
		t.Errorf("the promoted handler's context ended with %v, want tasks.ErrCancelled", cause)
	}
}

// manualDeadline makes the deadlines of s's promotions pass only when the
// test sends on the returned channel, one per send.
func manualDeadline(s *Server) chan<- time.Time {
	c := make(chan time.Time)
	s.timer = func(time.Duration) (<-chan time.Time, func() bool) { return c, func() bool { return true } }
	return c
}

// heldExecutor is a tasks.Executor that queues task runs until released,
// holding a promoted call's task between its creation and its first run.
type heldExecutor struct {
	mu       sync.Mutex
	queued   []func()
	released bool
}

func (e *heldExecutor) Go(run func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.released {
		go run()
		return
	}
	e.queued = append(e.queued, run)
}

// release runs the queued runs and every later one at once.
func (e *heldExecutor) release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.released = true
	for _, run := range e.queued {
		go run()
	}
	e.queued = nil
}

// heldRuntime returns a runtime whose task runs wait until the test ends.
func heldRuntime(t *testing.T, opts ...tasks.Option) *tasks.Runtime {
	exec := &heldExecutor{}
	rt := newRuntime(t, append(opts, tasks.WithExecutor(exec))...)
	t.Cleanup(exec.release) // before the runtime closes
	return rt
}

func TestPromotion_CancelBeforeTakeoverEndsTheExecutionAsCancelled(t *testing.T) {
	rt := heldRuntime(t)
	g := newGate()
	c := open(t, promotingServer(t, rt, g, mcp.TaskSupportOptional, time.Millisecond), mcp.Version20260728, extCaps, nil)
	created := createExtensionTask(t, c, "promoted", `{}`)
	g.awaitStart(t)
	// The task exists but its first run, which would take the execution
	// over, has not started.
	c.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+created.TaskID+`"}`)
	if cause := g.awaitEnd(t); cause != tasks.ErrCancelled {
		t.Errorf("cancelling the task before its run took the execution over ended it with %v, want tasks.ErrCancelled", cause)
	}
}

func TestPromotion_ExpiryBeforeTakeoverEndsTheExecutionAsExpired(t *testing.T) {
	clock := newFakeClock()
	rt := heldRuntime(t, tasks.WithClock(clock), tasks.WithSweepInterval(time.Millisecond), tasks.WithTTL(time.Minute, time.Hour))
	g := newGate()
	c := open(t, promotingServer(t, rt, g, mcp.TaskSupportOptional, time.Millisecond), mcp.Version20260728, extCaps, nil)
	createExtensionTask(t, c, "promoted", `{}`)
	g.awaitStart(t)
	clock.Advance(2 * time.Minute)
	if cause := g.awaitEnd(t); cause != tasks.ErrExpired {
		t.Errorf("the task expiring before its run took the execution over ended it with %v, want tasks.ErrExpired", cause)
	}
}

func TestPromotion_RequiredToolFinishedInlineIsATaskBornFinished(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	g.release()
	c := open(t, promotingServer(t, rt, g, mcp.TaskSupportRequired, time.Hour), mcp.Version20260728, extCaps, nil)
	created := createExtensionTask(t, c, "promoted", `{}`)
	done := awaitStatus(t, rt, "", created.TaskID, tasks.StatusCompleted)
	if got := text1(t, done.Result); got != "run 1" {
		t.Errorf("result %q", got)
	}
}

func TestPromotion_EndingTheRequestBeforeTheDeadlineCancelsTheHandler(t *testing.T) {
	g := newGate()
	c := open(t, promotingServer(t, newRuntime(t), g, mcp.TaskSupportOptional, time.Hour), mcp.Version20260728, extCaps, nil)
	ids := make(chan jsonrpc.ID, 1)
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		done <- c.conn.Call(ctx, mcp.MethodToolsCall, stdjson.RawMessage(c.withMeta(`{"name":"promoted","arguments":{}}`, "")), nil,
			jsonrpc.OnID(func(id jsonrpc.ID) { ids <- id }))
	}()
	id := <-ids
	g.awaitStart(t)
	c.notify(mcp.NotificationCancelled, `{"requestId":`+id.Raw()+`}`)
	if cause := g.awaitEnd(t); cause == nil {
		t.Error("the inline handler was not cancelled with its request")
	}
	cancel() // a cancelled request gets no response: stop waiting for one
	if err := <-done; err == nil {
		t.Error("the cancelled call got a result")
	}
}

func TestPromotion_MRTRRoundsResolveBeforeTheTaskIsCreated(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	s := taskServer(t, rt, g, nil)
	AddTool(s, &mcp.Tool{Name: "with_task"}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		name := AskElicit("user_name", &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema})
		if err := r.AskAll(ctx, name); err != nil {
			return "", err
		}
		if err := g.wait(ctx, false); err != nil { // the long part, past the deadline
			return "", err
		}
		return "Hello, " + field(name.Result, "name") + "!", nil
	}, Tasks(TaskConfig{Support: mcp.TaskSupportRequired, PromoteAfter: time.Millisecond}))
	deadline := manualDeadline(s)
	c := open(t, s, mcp.Version20260728, extCaps, nil)
	round1 := c.mustCall(mcp.MethodToolsCall, `{"name":"with_task","arguments":{}}`)
	if member(t, round1, "resultType") != `"input_required"` || hasMember(t, round1, "taskId") ||
		member(t, round1, "inputRequests", "user_name", "method") != `"elicitation/create"` {
		t.Fatalf("round 1 = %s, want an InputRequiredResult and no task", round1)
	}
	if g.runs.Load() != 0 {
		t.Fatal("the handler went past its question")
	}
	go func() {
		<-g.started // round 2 got past its question to the long part
		deadline <- time.Now()
	}()
	round2 := c.mustCall(mcp.MethodToolsCall, fmt.Sprintf(`{"name":"with_task","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":%s}`,
		member(t, round1, "requestState")))
	for _, m := range []string{"requestState", "inputRequests"} {
		if hasMember(t, round2, m) {
			t.Errorf("the CreateTaskResult %s carries %s", round2, m)
		}
	}
	if member(t, round2, "resultType") != `"task"` {
		t.Fatalf("round 2 = %s, want a CreateTaskResult", round2)
	}
	id := member(t, round2, "taskId")
	id = id[1 : len(id)-1]
	g.release()
	done := awaitStatus(t, rt, "", id, tasks.StatusCompleted)
	if got := text1(t, done.Result); got != "Hello, Alice!" {
		t.Errorf("result %q, want the name gathered before the task", got)
	}
}

func TestPromotion_MRTRAnswersAreReplayedWhenTheTaskRunsAgain(t *testing.T) {
	// A task created at once from a retry that carries answers records
	// them: every run of the task answers those questions from them.
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	AddTool(s, &mcp.Tool{Name: "decides_late"}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		name := AskElicit("user_name", &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema})
		if err := r.AskAll(ctx, name); err != nil {
			return "", err
		}
		return "Hi " + field(name.Result, "name"), nil
	}, Tasks(TaskConfig{Support: mcp.TaskSupportOptional, Decide: func(_ context.Context, r *Request, _ stdjson.RawMessage) bool {
		return r.roundAnswers() != nil // the first round runs inline, the retry as a task
	}}))
	c := open(t, s, mcp.Version20260728, extCaps, nil)
	round1 := c.mustCall(mcp.MethodToolsCall, `{"name":"decides_late","arguments":{}}`)
	created := c.mustCall(mcp.MethodToolsCall, fmt.Sprintf(`{"name":"decides_late","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Bo"}}},"requestState":%s}`,
		member(t, round1, "requestState")))
	id := member(t, created, "taskId")
	done := awaitStatus(t, rt, "", id[1:len(id)-1], tasks.StatusCompleted)
	if got := text1(t, done.Result); got != "Hi Bo" {
		t.Errorf("result %q", got)
	}
}
