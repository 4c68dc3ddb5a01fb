package server

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// These tests drive the 2025-11-25 task surface over transport.Pipe with a
// raw jsonrpc.Conn, each named after the requirement of the spec
// (docs/specification/2025-11-25/basic/utilities/tasks.mdx) it checks.

func TestLegacyTasks_CapabilityDeclaredOnlyWithARuntime(t *testing.T) {
	with := taskServer(t, newRuntime(t), newGate(), nil)
	without := newTestServer(t, nil)
	without.AddRawTool(&mcp.Tool{Name: "t"}, nil)
	for _, tc := range []struct {
		s       *Server
		version string
		want    string
	}{
		{with, mcp.Version20251125, `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`},
		{with, mcp.Version20250618, ``},
		{without, mcp.Version20251125, ``},
	} {
		c := connect(t, tc.s, nil)
		res := c.mustCall(mcp.MethodInitialize, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, tc.version))
		if got := member(t, res, "capabilities", "tasks"); got != tc.want {
			t.Errorf("%s: capabilities.tasks = %q, want %q", tc.version, got, tc.want)
		}
		if got := member(t, res, "capabilities", "extensions"); got != "" {
			t.Errorf("%s: a legacy session was told about extensions: %s", tc.version, got)
		}
	}
}

func TestLegacyTasks_ToolsListShowsTaskSupport(t *testing.T) {
	s := taskServer(t, newRuntime(t), newGate(), nil)
	want := map[string]string{"hold": `"optional"`, "tool_err": `"required"`, "greet": ``}
	for _, v := range []string{mcp.Version20251125, mcp.Version20250618, mcp.Version20260728} {
		c := open(t, s, v, `{}`, nil)
		var res struct {
			Tools []stdjson.RawMessage `json:"tools"`
		}
		decode(t, c.mustCall(mcp.MethodToolsList, `{}`), &res)
		for _, raw := range res.Tools {
			name := strings.Trim(member(t, raw, "name"), `"`)
			w, ok := want[name]
			if !ok {
				continue
			}
			if v != mcp.Version20251125 {
				w = ""
			}
			if got := member(t, raw, "execution", "taskSupport"); got != w {
				t.Errorf("%s: %s execution.taskSupport = %q, want %q", v, name, got, w)
			}
		}
	}
}

func TestLegacyTasks_RequiredToolWithoutTaskIsMethodNotFound(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20251125, `{}`, nil)
	e := c.callErr(mcp.MethodToolsCall, `{"name":"tool_err","arguments":{}}`)
	wantCode(t, "required tool without task", e, jsonrpc.CodeMethodNotFound)
	if !strings.Contains(e.Message, "Task augmentation required") {
		t.Errorf("message %q does not say a task is required", e.Message)
	}
}

func TestLegacyTasks_ForbiddenToolWithTaskIsMethodNotFound(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20251125, `{}`, nil)
	e := c.callErr(mcp.MethodToolsCall, `{"name":"greet","arguments":{"name":"x"},"task":{}}`)
	wantCode(t, "forbidden tool with task", e, jsonrpc.CodeMethodNotFound)
}

func TestLegacyTasks_UndeclaredTaskSupportProcessesNormally(t *testing.T) {
	// A server without a runtime declares no task support: the task param
	// is ignored, as it is before 2025-11-25 even with a runtime.
	plain := newTestServer(t, nil)
	AddTool(plain, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *Request, _ struct{}) (string, error) { return "hi", nil })
	c := open(t, plain, mcp.Version20251125, `{}`, nil)
	if got := text1(t, c.mustCall(mcp.MethodToolsCall, `{"name":"greet","task":{"ttl":1000}}`)); got != "hi" {
		t.Errorf("without task support: %q", got)
	}
	g := newGate()
	g.release()
	old := open(t, taskServer(t, newRuntime(t), g, nil), mcp.Version20250618, `{}`, nil)
	for _, tool := range []string{"hold", "tool_err"} {
		raw := old.mustCall(mcp.MethodToolsCall, `{"name":"`+tool+`","arguments":{},"task":{}}`)
		if hasMember(t, raw, "task") || !hasMember(t, raw, "content") {
			t.Errorf("2025-06-18 %s: got %s, want a plain result", tool, raw)
		}
	}
}

func TestLegacyTasks_CreateTaskResultReturnedAtOnceInWorking(t *testing.T) {
	rt := newRuntime(t, tasks.WithPollInterval(250*time.Millisecond), tasks.WithMinPollInterval(25*time.Millisecond))
	g := newGate()
	s := taskServer(t, rt, g, nil)
	s.AddRawTool(&mcp.Tool{Name: "announce"}, func(ctx context.Context, _ *Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
		g.wait(ctx, false)
		return textResult("done"), nil
	}, Tasks(TaskConfig{Support: mcp.TaskSupportOptional, ImmediateResponse: "Started; I'll report back."}))
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	raw := c.mustCall(mcp.MethodToolsCall, `{"name":"announce","arguments":{},"task":{"ttl":60000}}`)
	g.awaitStart(t) // the handler is still held: the answer did not wait for it
	var res mcp.CreateTaskResult
	decode(t, raw, &res)
	task := res.Task
	if task.Status != mcp.TaskWorking || task.TaskID == "" || task.CreatedAt == "" || task.LastUpdatedAt == "" {
		t.Errorf("created task %+v, want a working task with both timestamps", task)
	}
	if task.TTL == nil || *task.TTL != 60000 || task.PollInterval == nil || *task.PollInterval != 25 {
		t.Errorf("ttl %v, pollInterval %v; want 60000 and 25 (a new task's: the minimum)", task.TTL, task.PollInterval)
	}
	if got := member(t, raw, "_meta", mcp.MetaModelImmediateResponse); got != `"Started; I'll report back."` {
		t.Errorf("model-immediate-response = %s", got)
	}
	if hasMember(t, raw, "resultType") || hasMember(t, raw, "content") {
		t.Errorf("CreateTaskResult %s carries members of other results", raw)
	}
	if _, err := time.Parse(time.RFC3339Nano, task.CreatedAt); err != nil {
		t.Errorf("createdAt %q is not ISO 8601: %v", task.CreatedAt, err)
	}
	g.release()
}

func TestLegacyTasks_GetReturnsTheActualTTL(t *testing.T) {
	g := newGate()
	clamped := open(t, taskServer(t, newRuntime(t, tasks.WithTTL(time.Minute, 2*time.Minute)), g, nil), mcp.Version20251125, `{}`, nil)
	for _, tc := range []struct{ asked, want string }{
		{`{"ttl":600000}`, "120000"}, {`{}`, "60000"}, {`{"ttl":5000}`, "5000"},
		// Past what a time.Duration holds: the maximum, not a wrapped TTL
		// (1 ms for the first, the default for the second).
		{`{"ttl":18446744073710}`, "120000"}, {`{"ttl":9223372036855}`, "120000"},
	} {
		id := createLegacyTask(t, clamped, "hold", tc.asked).TaskID
		if got := member(t, clamped.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "ttl"); got != tc.want {
			t.Errorf("asked %s: tasks/get ttl = %s, want %s", tc.asked, got, tc.want)
		}
	}
	unlimited := open(t, taskServer(t, newRuntime(t, tasks.WithTTL(0, 0)), g, nil), mcp.Version20251125, `{}`, nil)
	id := createLegacyTask(t, unlimited, "hold", `{}`).TaskID
	if got := member(t, unlimited.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "ttl"); got != "null" {
		t.Errorf("unlimited task: ttl = %s, want null", got)
	}
	g.release()
}

func TestLegacyTasks_ResultBlocksUntilTerminalAndCarriesRelatedTask(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`, nil)
	id := createLegacyTask(t, c, "hold", `{}`).TaskID
	g.awaitStart(t)
	got := make(chan stdjson.RawMessage, 1)
	go func() {
		res, err := c.call(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
		if err != nil {
			t.Errorf("tasks/result: %v", err)
		}
		got <- res
	}()
	// tasks/result is now blocked on a working task: a tasks/get on the
	// same connection still answers, and shows the task working.
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "status"); s != `"working"` {
		t.Fatalf("status %s while held", s)
	}
	select {
	case r := <-got:
		t.Fatalf("tasks/result answered %s before the task finished", r)
	default:
	}
	g.release()
	raw := <-got
	if text1(t, raw) != "held" {
		t.Errorf("tasks/result = %s, want the tool's result", raw)
	}
	if rel := member(t, raw, "_meta", mcp.MetaRelatedTask, "taskId"); rel != `"`+id+`"` {
		t.Errorf("tasks/result related-task = %s, want %q", rel, id)
	}
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "status"); s != `"completed"` {
		t.Errorf("status %s after the result", s)
	}
}

// A store may give a result back spaced out over lines (one keeping it as
// JSON text might): tasks/result still sends one compact line, which a
// stdio client reads whole, and the connection goes on.
func TestLegacyTasks_ResultIsSentCompactWhateverTheStoreGivesBack(t *testing.T) {
	rt := newRuntimeOn(t, indentingStore{tasks.NewMemoryStore()}, tasks.NewMemoryBus(), tasks.WithRecordCache(0))
	g := newGate()
	c := openStdio(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`)
	id := createLegacyTask(t, c, "hold", `{}`).TaskID
	g.release()
	raw := c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	want := `{"content":[{"type":"text","text":"held"}],"_meta":{"` + mcp.MetaRelatedTask + `":{"taskId":"` + id + `"}}}`
	if string(raw) != want {
		t.Errorf("tasks/result = %s\nwant %s", raw, want)
	}
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "status"); s != `"completed"` {
		t.Errorf("tasks/get after the result: status %s, want completed", s)
	}
}

// indentingStore gives every stored result back indented over lines.
type indentingStore struct{ tasks.Store }

// Get implements tasks.Store.
func (s indentingStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	rec, err := s.Store.Get(ctx, id)
	if err == nil && rec.Result != nil {
		var spaced bytes.Buffer
		if err := stdjson.Indent(&spaced, rec.Result, "", "  "); err != nil {
			return nil, err
		}
		rec.Result = spaced.Bytes()
	}
	return rec, err
}

func TestLegacyTasks_ResultReturnsTheUnderlyingJSONRPCError(t *testing.T) {
	rt := newRuntime(t)
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20251125, `{}`, nil)
	id := createLegacyTask(t, c, "rpc_err", `{}`).TaskID
	e := c.callErr(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	if e.Code != -32042 || e.Message != "quota" || string(e.Data) != `{"retryAfter":3}` {
		t.Errorf("tasks/result error = %d %q %s, want the tool's -32042 \"quota\" {\"retryAfter\":3}", e.Code, e.Message, e.Data)
	}
	raw := c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`)
	if member(t, raw, "status") != `"failed"` || member(t, raw, "statusMessage") != `"quota"` {
		t.Errorf("tasks/get of a failed task = %s, want failed with a statusMessage", raw)
	}
}

func TestLegacyTasks_ToolErrorResultMakesTheTaskFailed(t *testing.T) {
	rt := newRuntime(t)
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20251125, `{}`, nil)
	id := createLegacyTask(t, c, "tool_err", `{}`).TaskID
	raw := c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	if member(t, raw, "isError") != "true" || text1(t, raw) != "boom" {
		t.Errorf("tasks/result = %s, want the tool's error result", raw)
	}
	got := c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`)
	if member(t, got, "status") != `"failed"` || !strings.Contains(member(t, got, "statusMessage"), "boom") {
		t.Errorf("tasks/get = %s, want failed with the tool's error in statusMessage", got)
	}
}

func TestLegacyTasks_InputRequiredQuestionsTravelOnTasksResult(t *testing.T) {
	rt := newRuntime(t)
	a := newAnswerer("Ada")
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20251125, legacyTaskCaps, a.answer)
	id := createLegacyTask(t, c, "ask", `{}`).TaskID
	// The receiver SHOULD move the task to input_required...
	awaitStatus(t, rt, c.session.ID(), id, tasks.StatusInputRequired)
	select {
	case r := <-a.got:
		t.Fatalf("the server sent %s before the client called tasks/result or polled the task", r.Method)
	default:
	}
	raw := c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	// ...and its request MUST carry the related-task metadata.
	req := a.next(t)
	if req.Method != mcp.MethodElicitationCreate || member(t, req.Params, "_meta", mcp.MetaRelatedTask, "taskId") != `"`+id+`"` {
		t.Errorf("the question arrived as %s %s, want elicitation/create tagged with the task", req.Method, req.Params)
	}
	if member(t, req.Params, "message") != `"Your name?"` {
		t.Errorf("question params %s", req.Params)
	}
	if text1(t, raw) != "Hello, Ada!" {
		t.Errorf("tasks/result = %s", raw)
	}
}

// A client that polls a task in input_required without calling tasks/result
// (as the official Tasks requester does) gets the question on the session,
// once, tagged with the task; its answer resumes the task.
func TestLegacyTasks_APolledQuestionReachesTheSessionWithoutTasksResult(t *testing.T) {
	rt := newRuntime(t)
	a := newAnswerer("Ada")
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20251125, legacyTaskCaps, a.answer)
	id := createLegacyTask(t, c, "ask", `{}`).TaskID
	awaitStatus(t, rt, c.session.ID(), id, tasks.StatusInputRequired)
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "status"); s != `"input_required"` {
		t.Fatalf("status %s, want input_required", s)
	}
	c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`) // more polls, still one delivery
	c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`)
	req := a.next(t)
	if req.Method != mcp.MethodElicitationCreate || member(t, req.Params, "_meta", mcp.MetaRelatedTask, "taskId") != `"`+id+`"` {
		t.Errorf("the question arrived as %s %s, want elicitation/create tagged with the task", req.Method, req.Params)
	}
	awaitStatus(t, rt, c.session.ID(), id, tasks.StatusCompleted)
	if raw := c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`); text1(t, raw) != "Hello, Ada!" {
		t.Errorf("tasks/result = %s", raw)
	}
	select {
	case r := <-a.got:
		t.Errorf("the question was delivered twice: %s %s", r.Method, r.Params)
	default:
	}
}

func TestLegacyTasks_InputReceivedMovesTheTaskBackToWorking(t *testing.T) {
	rt := newRuntime(t)
	a := newAnswerer("Ada")
	g := newGate()
	s := taskServer(t, rt, g, nil)
	AddTool(s, &mcp.Tool{Name: "ask_then_hold"}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		if _, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Go?", RequestedSchema: nameSchema}); err != nil {
			return "", err
		}
		return "ok", g.wait(ctx, false)
	}, optional)
	c := open(t, s, mcp.Version20251125, legacyTaskCaps, a.answer)
	id := createLegacyTask(t, c, "ask_then_hold", `{}`).TaskID
	awaitStatus(t, rt, c.session.ID(), id, tasks.StatusInputRequired)
	go c.call(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	g.awaitStart(t)
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "status"); s != `"working"` {
		t.Errorf("after the answer, status %s, want working", s)
	}
	g.release()
}

func TestLegacyTasks_ClientRefusalFailsTheQuestion(t *testing.T) {
	rt := newRuntime(t)
	a := newAnswerer("")
	a.err = jsonrpc.NewError(-32600, "the user closed the dialog")
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20251125, legacyTaskCaps, a.answer)
	id := createLegacyTask(t, c, "ask", `{}`).TaskID
	awaitStatus(t, rt, c.session.ID(), id, tasks.StatusInputRequired)
	raw := c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	if member(t, raw, "isError") != "true" || !strings.Contains(text1(t, raw), "the user closed the dialog") {
		t.Errorf("tasks/result = %s, want a tool error carrying the client's refusal", raw)
	}
}

func TestLegacyTasks_StatusNotificationsOnEveryChange(t *testing.T) {
	rt := newRuntime(t)
	a := newAnswerer("Ada")
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20251125, legacyTaskCaps, a.answer)
	id := createLegacyTask(t, c, "ask", `{}`).TaskID
	awaitStatus(t, rt, c.session.ID(), id, tasks.StatusInputRequired)
	c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	var seen []string
	for len(seen) == 0 || seen[len(seen)-1] != "completed" {
		n := c.nextNoteOf(mcp.NotificationTasksStatus)
		var p mcp.TaskStatusNotificationParams
		decode(t, n.Params, &p)
		if p.TaskID != id || p.CreatedAt == "" || p.LastUpdatedAt == "" {
			t.Fatalf("notification %s: want the full task", n.Params)
		}
		if member(t, n.Params, "_meta", mcp.MetaRelatedTask) != "" {
			t.Errorf("notifications/tasks/status carries related-task _meta: %s", n.Params)
		}
		seen = append(seen, string(p.Status))
	}
	// Each notification carries the whole current task, and the watcher
	// behind them may merge changes that follow each other quickly (here the
	// client answers at once), so any in-order part of the transitions that
	// ends with the terminal state is right; anything else (a repeat, a step
	// backwards, the creation state) is not.
	valid := map[string]bool{
		"input_required,working,completed": true, "input_required,completed": true,
		"working,completed": true, "completed": true,
	}
	if got := strings.Join(seen, ","); !valid[got] {
		t.Errorf("status notifications %s, want an in-order part of input_required,working,completed ending in completed", got)
	}
}

func TestLegacyTasks_ProgressTokenStaysValidForTheTaskLife(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	s := taskServer(t, rt, g, nil)
	sent := make(chan error, 1)
	s.AddRawTool(&mcp.Tool{Name: "progress"}, func(ctx context.Context, r *Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
		g.wait(ctx, false) // reports only after the CreateTaskResult was answered
		err := r.Progress(ctx, 1, 2, "halfway")
		if err == nil {
			err = r.Log(ctx, mcp.LevelInfo, "tool", "a log line")
		}
		sent <- err
		return textResult("done"), nil
	}, optional)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	c.mustCall(mcp.MethodLoggingSetLevel, `{"level":"info"}`)
	var created mcp.CreateTaskResult
	decode(t, c.mustCall(mcp.MethodToolsCall, `{"_meta":{"progressToken":7},"name":"progress","arguments":{},"task":{}}`), &created)
	id := created.Task.TaskID
	g.release()
	if err := <-sent; err != nil {
		t.Fatalf("Progress and Log inside the task: %v", err)
	}
	n := c.nextNoteOf(mcp.NotificationProgress)
	if member(t, n.Params, "progressToken") != "7" || member(t, n.Params, "message") != `"halfway"` ||
		member(t, n.Params, "_meta", mcp.MetaRelatedTask, "taskId") != `"`+id+`"` {
		t.Errorf("progress notification %s, want token 7 and the message, tagged with the task", n.Params)
	}
	log := c.nextNoteOf(mcp.NotificationMessage)
	if member(t, log.Params, "_meta", mcp.MetaRelatedTask, "taskId") != `"`+id+`"` {
		t.Errorf("log notification %s is not tagged with the task", log.Params)
	}
	c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
}

func TestLegacyTasks_ProgressStopsAtTerminalStatus(t *testing.T) {
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	report := make(chan struct{})
	reported := make(chan error)
	s.AddRawTool(&mcp.Tool{Name: "reporter"}, func(ctx context.Context, r *Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
		n := 0.0
		for range report {
			n++
			reported <- r.Progress(ctx, n, 0, "")
		}
		return textResult("done"), nil
	}, optional)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	var created mcp.CreateTaskResult
	decode(t, c.mustCall(mcp.MethodToolsCall, `{"_meta":{"progressToken":"p"},"name":"reporter","arguments":{},"task":{}}`), &created)
	id := created.Task.TaskID
	report <- struct{}{}
	if err := <-reported; err != nil {
		t.Fatalf("Progress while working: %v", err)
	}
	c.nextNoteOf(mcp.NotificationProgress)
	awaitMessage(t, rt, c.session.ID(), id, "1")
	if got := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "statusMessage"); got != `"1"` {
		t.Errorf("statusMessage %s, want the progress", got)
	}
	c.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+id+`"}`)
	report <- struct{}{}
	if err := <-reported; err != ErrRequestDone {
		t.Errorf("Progress after the task was cancelled = %v, want ErrRequestDone", err)
	}
	close(report)
	c.sync()
	for {
		select {
		case n := <-c.notes:
			if n.Method == mcp.NotificationProgress {
				t.Fatalf("progress notification %s after the task was cancelled", n.Params)
			}
			continue
		default:
		}
		break
	}
}

func TestLegacyTasks_ListIsPaginatedAndHoldsEveryRetrievableTask(t *testing.T) {
	rt := newRuntime(t, tasks.WithPageSize(2))
	g := newGate()
	s := taskServer(t, rt, g, nil)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	other := open(t, s, mcp.Version20251125, `{}`, nil)
	want := map[string]bool{}
	for range 3 {
		want[createLegacyTask(t, c, "hold", `{}`).TaskID] = true
	}
	createLegacyTask(t, other, "hold", `{}`)
	got := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatal("tasks/list does not end")
		}
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		var page mcp.ListTasksResult
		raw := c.mustCall(mcp.MethodTasksList, params)
		decode(t, raw, &page)
		for _, task := range page.Tasks {
			if task.CreatedAt == "" || task.LastUpdatedAt == "" {
				t.Errorf("listed task %+v lacks its timestamps", task)
			}
			got[task.TaskID] = true
		}
		if member(t, raw, "_meta", mcp.MetaRelatedTask) != "" {
			t.Errorf("tasks/list result carries related-task _meta")
		}
		if page.NextCursor == "" {
			if len(got) < len(want) {
				t.Fatalf("no nextCursor after %d of %d tasks", len(got), len(want))
			}
			break
		}
		cursor = page.NextCursor
	}
	for id := range want {
		if !got[id] {
			t.Errorf("task %s is retrievable but not listed", id)
		}
		c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`)
	}
	if len(got) != len(want) {
		t.Errorf("listed %d tasks, want the session's own %d", len(got), len(want))
	}
	wantCode(t, "bad cursor", c.callErr(mcp.MethodTasksList, `{"cursor":"not-a-cursor"}`), jsonrpc.CodeInvalidParams)
	g.release()
}

func TestLegacyTasks_CancelMovesToCancelledBeforeResponding(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`, nil)
	id := createLegacyTask(t, c, "hold", `{}`).TaskID
	g.awaitStart(t)
	raw := c.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+id+`"}`)
	var res mcp.CancelTaskResult
	decode(t, raw, &res)
	if res.Status != mcp.TaskCancelled || res.TaskID != id || res.StatusMessage == "" || res.CreatedAt == "" {
		t.Errorf("tasks/cancel = %s, want the task, cancelled", raw)
	}
	if member(t, raw, "_meta", mcp.MetaRelatedTask) != "" {
		t.Errorf("tasks/cancel result carries related-task _meta")
	}
	// The receiver SHOULD stop the work: the handler's context ends.
	if cause := g.awaitEnd(t); cause != tasks.ErrCancelled {
		t.Errorf("the handler's context ended with %v, want tasks.ErrCancelled", cause)
	}
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "status"); s != `"cancelled"` {
		t.Errorf("status after cancel %s", s)
	}
}

func TestLegacyTasks_CancelledTaskStaysCancelledWhenExecutionFinishes(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`, nil)
	id := createLegacyTask(t, c, "stubborn", `{}`).TaskID
	g.awaitStart(t)
	c.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+id+`"}`)
	g.release() // the handler ignores its context and returns a result
	g.awaitEnd(t)
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`), "status"); s != `"cancelled"` {
		t.Errorf("status after the handler returned %s, want cancelled", s)
	}
	e := c.callErr(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	wantCode(t, "tasks/result of a cancelled task", e, jsonrpc.CodeInvalidParams)
}

func TestLegacyTasks_CancelOfATerminalTaskIsInvalidParams(t *testing.T) {
	rt := newRuntime(t)
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20251125, `{}`, nil)
	for _, tc := range []struct{ tool, status string }{{"rpc_err", "failed"}, {"tool_err", "failed"}} {
		id := createLegacyTask(t, c, tc.tool, `{}`).TaskID
		c.call(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`) // waits for the end
		e := c.callErr(mcp.MethodTasksCancel, `{"taskId":"`+id+`"}`)
		wantCode(t, "cancel of a finished task", e, jsonrpc.CodeInvalidParams)
		if e.Message != "Cannot cancel task: already in terminal status '"+tc.status+"'" {
			t.Errorf("%s: message %q", tc.tool, e.Message)
		}
	}
	a := newAnswerer("x")
	g := newGate()
	g.release()
	c2 := open(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`, a.answer)
	id := createLegacyTask(t, c2, "hold", `{}`).TaskID
	c2.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	e := c2.callErr(mcp.MethodTasksCancel, `{"taskId":"`+id+`"}`)
	if e.Message != "Cannot cancel task: already in terminal status 'completed'" {
		t.Errorf("message %q", e.Message)
	}
}

func TestLegacyTasks_UnknownTaskIsInvalidParams(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20251125, `{}`, nil)
	for _, m := range []string{mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel} {
		wantCode(t, m, c.callErr(m, `{"taskId":"no-such-task"}`), jsonrpc.CodeInvalidParams)
		wantCode(t, m+" without taskId", c.callErr(m, `{}`), jsonrpc.CodeInvalidParams)
	}
}

func TestLegacyTasks_RelatedTaskMetaOnTaskRequestsIsIgnored(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`, nil)
	held := createLegacyTask(t, c, "hold", `{}`).TaskID
	failed := createLegacyTask(t, c, "rpc_err", `{}`).TaskID
	awaitStatus(t, rt, c.session.ID(), failed, tasks.StatusFailed)
	misleading := fmt.Sprintf(`{"_meta":{%q:{"taskId":%q}},"taskId":%q}`, mcp.MetaRelatedTask, failed, held)
	raw := c.mustCall(mcp.MethodTasksGet, misleading)
	if member(t, raw, "taskId") != `"`+held+`"` || member(t, raw, "status") != `"working"` {
		t.Errorf("tasks/get followed the related-task _meta: %s", raw)
	}
	if member(t, raw, "_meta", mcp.MetaRelatedTask) != "" {
		t.Errorf("tasks/get result carries related-task _meta: %s", raw)
	}
	if member(t, c.mustCall(mcp.MethodTasksCancel, misleading), "taskId") != `"`+held+`"` {
		t.Errorf("tasks/cancel followed the related-task _meta")
	}
}

func TestLegacyTasks_NotificationsCancelledDoNotCancelTasks(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20251125, `{}`, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var res mcp.CreateTaskResult
	var callID jsonrpc.ID
	if err := c.conn.Call(ctx, mcp.MethodToolsCall, stdjson.RawMessage(`{"name":"hold","arguments":{},"task":{}}`), &res,
		jsonrpc.OnID(func(id jsonrpc.ID) { callID = id })); err != nil {
		t.Fatal(err)
	}
	c.notify(mcp.NotificationCancelled, fmt.Sprintf(`{"requestId":%s,"reason":"changed my mind"}`, callID.Raw()))
	c.sync()
	if s := member(t, c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+res.Task.TaskID+`"}`), "status"); s != `"working"` {
		t.Errorf("after notifications/cancelled for the tools/call, status %s; only tasks/cancel cancels a task", s)
	}
	g.release()
}

func TestLegacyTasks_ExtensionCapabilityDoesNotEnableTasks(t *testing.T) {
	g := newGate()
	g.release()
	c := open(t, taskServer(t, newRuntime(t), g, nil), mcp.Version20251125, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, nil)
	raw := c.mustCall(mcp.MethodToolsCall, `{"name":"hold","arguments":{}}`)
	if hasMember(t, raw, "task") || hasMember(t, raw, "taskId") || text1(t, raw) != "held" {
		t.Errorf("a 2025-11-25 call without the task param got %s; the extension does not apply to this version", raw)
	}
}

func TestLegacyTasks_UpdateDoesNotExist(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20251125, `{}`, nil)
	wantCode(t, "tasks/update", c.callErr(mcp.MethodTasksUpdate, `{"taskId":"x","inputResponses":{}}`), jsonrpc.CodeMethodNotFound)
	older := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20250618, `{}`, nil)
	wantCode(t, "tasks/get in 2025-06-18", older.callErr(mcp.MethodTasksGet, `{"taskId":"x"}`), jsonrpc.CodeMethodNotFound)
}

func TestLegacyTasks_InvalidArgumentsAreTheTaskOutcomeAToolError(t *testing.T) {
	// The client asked for a task, so it gets one; the input validation
	// error is a tool execution error (SEP-1303), which on this surface
	// makes the task failed, and tasks/result returns it as the result.
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	addCountTool(s, optional)
	c := open(t, s, mcp.Version20251125, `{}`, nil)
	raw := c.mustCall(mcp.MethodToolsCall, `{"name":"count","arguments":{"n":"x"},"task":{}}`)
	var created mcp.CreateTaskResult
	decode(t, raw, &created)
	if created.Task.TaskID == "" {
		t.Fatalf("tools/call with a task and invalid arguments answered %s, want a CreateTaskResult", raw)
	}
	id := created.Task.TaskID
	res := c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	if member(t, res, "isError") != "true" || !containsAll(text1(t, res), `invalid arguments for tool "count"`, "n: type") {
		t.Errorf("tasks/result = %s, want the tool error naming the argument", res)
	}
	got := c.mustCall(mcp.MethodTasksGet, `{"taskId":"`+id+`"}`)
	if member(t, got, "status") != `"failed"` || !strings.Contains(member(t, got, "statusMessage"), "invalid arguments") {
		t.Errorf("tasks/get = %s, want failed saying why", got)
	}
	// Arguments outside the CallToolRequest schema stay a protocol error,
	// with no task.
	wantCode(t, "non-object arguments", c.callErr(mcp.MethodToolsCall, `{"name":"count","arguments":[1],"task":{}}`), jsonrpc.CodeInvalidParams)
	if raw := c.mustCall(mcp.MethodToolsCall, `{"name":"count","arguments":{"n":2},"task":{}}`); !hasMember(t, raw, "task") {
		t.Errorf("valid arguments: %s, want a task", raw)
	}
}

// A follower of a task that delivers from a stale snapshot (the question
// since answered, the task finished, its delivery records forgotten by
// another follower) asks the client nothing: the e2e stress pass saw a
// client asked twice over WebSocket when tasks/result and a poll's
// follower both followed one task.
func TestLegacyTasks_AStaleSnapshotAsksNothing(t *testing.T) {
	rt := newRuntime(t)
	a := newAnswerer("Ada")
	s := taskServer(t, rt, newGate(), nil)
	c := open(t, s, mcp.Version20251125, legacyTaskCaps, a.answer)
	id := createLegacyTask(t, c, "ask", `{}`).TaskID
	stale := awaitStatus(t, rt, c.session.ID(), id, tasks.StatusInputRequired)
	if raw := c.mustCall(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`); text1(t, raw) != "Hello, Ada!" {
		t.Fatalf("tasks/result = %s", raw)
	}
	if req := a.next(t); req.Method != mcp.MethodElicitationCreate {
		t.Fatalf("the client was asked %s, want elicitation/create", req.Method)
	}

	s.deliverInput(context.Background(), c.session, c.session.ID(), id, stale.InputRequests[0])
	select {
	case r := <-a.got:
		t.Errorf("a stale snapshot asked the client again: %s %s", r.Method, r.Params)
	default:
	}
}

// The server holds a question it delivers to a legacy client only while
// it delivers it: once the answer is recorded nothing of it stays, though
// the task runs on and no tasks/result may be left to see it finish (the
// client can go away). Answered deliveries used to stay until one did.
func TestLegacyTasks_AnAnsweredQuestionLeavesNoDeliveryBehind(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	defer g.release()
	s := taskServer(t, rt, g, nil)
	AddTool(s, &mcp.Tool{Name: "ask_then_hold", Description: "Asks for a name, then waits at the gate."},
		func(ctx context.Context, r *Request, _ struct{}) (string, error) {
			if _, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: nameSchema}); err != nil {
				return "", err
			}
			return "held", g.wait(ctx, false)
		}, optional)
	a := newAnswerer("Ada")
	asked, proceed := make(chan struct{}, 1), make(chan struct{})
	answer := func(ctx context.Context, method string, params stdjson.RawMessage) (any, error) {
		asked <- struct{}{}
		<-proceed
		return a.answer(ctx, method, params)
	}
	c := open(t, s, mcp.Version20251125, legacyTaskCaps, answer)
	id := createLegacyTask(t, c, "ask_then_hold", `{}`).TaskID
	go c.call(mcp.MethodTasksResult, `{"taskId":"`+id+`"}`)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	receiveWithin(ctx, t, asked, "question reached the client")

	var d *delivery
	s.tasks.mu.Lock()
	for k, v := range s.tasks.delivering {
		if k.task == id {
			d = v
		}
	}
	s.tasks.mu.Unlock()
	if d == nil {
		t.Fatal("no delivery is recorded while the client is being asked")
	}
	close(proceed)
	receiveWithin(ctx, t, d.done, "end of the delivery")
	g.awaitStart(t) // the tool has its answer and holds
	if !d.answered {
		t.Fatal("the delivery ended unanswered")
	}
	s.tasks.mu.Lock()
	left := len(s.tasks.delivering)
	s.tasks.mu.Unlock()
	if left != 0 {
		t.Errorf("%d deliveries are still recorded after the answer, while the task runs on", left)
	}
}
