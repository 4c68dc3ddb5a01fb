package server

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// These tests drive the io.modelcontextprotocol/tasks extension (SEP-2663)
// on modern requests over transport.Pipe with a raw jsonrpc.Conn, each named
// after the requirement it checks.

func TestExtensionTasks_AdvertisedInDiscoverNeverAsTheLegacyCapability(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20260728, `{}`, nil)
	raw := c.mustCall(mcp.MethodServerDiscover, `{}`)
	if got := member(t, raw, "capabilities", "extensions", mcp.ExtensionTasks); got != "{}" {
		t.Errorf("capabilities.extensions[tasks] = %q, want {}", got)
	}
	if got := member(t, raw, "capabilities", "tasks"); got != "" {
		t.Errorf("a modern discover result carries the legacy capabilities.tasks: %s", got)
	}
	without := newTestServer(t, &Options{Capabilities: &mcp.ServerCapabilities{Extensions: map[string]mcp.JSONObject{mcp.ExtensionTasks: {}, "x/y": {}}}})
	without.AddRawTool(&mcp.Tool{Name: "t"}, nil)
	raw = open(t, without, mcp.Version20260728, `{}`, nil).mustCall(mcp.MethodServerDiscover, `{}`)
	if got := member(t, raw, "capabilities", "extensions"); got != `{"x/y":{}}` {
		t.Errorf("a server without a runtime declares extensions %s", got)
	}
}

func TestExtensionTasks_NoTaskUnlessThisRequestDeclaresTheExtension(t *testing.T) {
	g := newGate()
	g.release()
	s := taskServer(t, newRuntime(t), g, nil)
	declaring := open(t, s, mcp.Version20260728, extCaps, nil)
	createExtensionTask(t, declaring, "hold", `{}`)
	// The same connection, then another request without the extension: the
	// server must not infer it from the earlier request.
	declaring.caps = `{"elicitation":{}}`
	raw := declaring.mustCall(mcp.MethodToolsCall, `{"name":"hold","arguments":{}}`)
	if member(t, raw, "resultType") != `"complete"` || hasMember(t, raw, "taskId") || text1(t, raw) != "held" {
		t.Errorf("a request without the extension got %s, want a plain result", raw)
	}
	// The legacy capability alone is no declaration either.
	declaring.caps = `{"tasks":{"requests":{"tools":{"call":{}}}}}`
	raw = declaring.mustCall(mcp.MethodToolsCall, `{"name":"hold","arguments":{}}`)
	if hasMember(t, raw, "taskId") {
		t.Errorf("the legacy tasks capability created a task: %s", raw)
	}
	wantCode(t, "tasks/get with only the legacy capability", declaring.callErr(mcp.MethodTasksGet, `{"taskId":"x"}`), mcp.CodeMissingRequiredClientCapability)
}

func TestExtensionTasks_RequiredToolWithoutTheExtensionIsMissingCapability(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20260728, `{}`, nil)
	e := c.callErr(mcp.MethodToolsCall, `{"name":"tool_err","arguments":{}}`)
	wantCode(t, "required tool", e, mcp.CodeMissingRequiredClientCapability)
	if got := member(t, e.Data, "requiredCapabilities", "extensions", mcp.ExtensionTasks); got != "{}" {
		t.Errorf("error data %s, want requiredCapabilities.extensions[tasks] = {}", e.Data)
	}
}

func TestExtensionTasks_CreateTaskResultIsFlatAndDurablyCreated(t *testing.T) {
	// Two instances sharing one store and bus: the task must be visible
	// on the other before the CreateTaskResult is sent.
	store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	g := newGate()
	a := open(t, taskServer(t, newRuntimeOn(t, store, bus), g, nil), mcp.Version20260728, extCaps, nil)
	b := open(t, taskServer(t, newRuntimeOn(t, store, bus), g, nil), mcp.Version20260728, extCaps, nil)
	raw := a.mustCall(mcp.MethodToolsCall, `{"name":"hold","arguments":{}}`)
	var created mcp.ExtCreateTaskResult
	decode(t, raw, &created)
	if created.ResultType != mcp.ResultTask || created.Status != mcp.TaskWorking || created.TaskID == "" ||
		!strings.HasPrefix(created.CreatedAt, "20") || created.LastUpdatedAt == "" {
		t.Errorf("CreateTaskResult %s", raw)
	}
	for _, forbidden := range []string{"task", "ttl", "pollInterval", "result", "error", "inputRequests", "requestState", "content"} {
		if hasMember(t, raw, forbidden) {
			t.Errorf("CreateTaskResult %s carries %q", raw, forbidden)
		}
	}
	if created.TTLMs == nil || *created.TTLMs <= 0 || created.PollIntervalMs == nil || *created.PollIntervalMs <= 0 {
		t.Errorf("ttlMs %v, pollIntervalMs %v: want positive integers", created.TTLMs, created.PollIntervalMs)
	}
	got, _ := extGet(t, b, created.TaskID)
	if got.TaskID != created.TaskID || got.ResultType != mcp.ResultComplete {
		t.Errorf("tasks/get on the other instance right after creation: %+v", got)
	}
	g.release()
}

func TestExtensionTasks_LegacyTaskParamIsIgnored(t *testing.T) {
	g := newGate()
	g.release()
	s := taskServer(t, newRuntime(t), g, nil)
	c := open(t, s, mcp.Version20260728, extCaps, nil)
	raw := c.mustCall(mcp.MethodToolsCall, `{"name":"greet","arguments":{"name":"x"},"task":{"ttl":60000,"pollInterval":100}}`)
	if member(t, raw, "resultType") != `"complete"` || hasMember(t, raw, "taskId") || text1(t, raw) != "Hello, x!" {
		t.Errorf("greet with a legacy task param: %s", raw)
	}
	plain := open(t, s, mcp.Version20260728, `{}`, nil)
	raw = plain.mustCall(mcp.MethodToolsCall, `{"name":"hold","arguments":{},"task":{}}`)
	if hasMember(t, raw, "taskId") || hasMember(t, raw, "task") {
		t.Errorf("the legacy task param made a task for a request without the extension: %s", raw)
	}
}

func TestExtensionTasks_GetShowsTheStatusPayload(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20260728, extCaps, nil)
	check := func(id string, status mcp.TaskStatus, members ...string) stdjson.RawMessage {
		t.Helper()
		got, raw := extGet(t, c, id)
		if got.Status != status || got.ResultType != mcp.ResultComplete {
			t.Fatalf("tasks/get = %s, want status %s and resultType complete", raw, status)
		}
		for _, m := range []string{"result", "error", "inputRequests", "requestState", "ttl", "pollInterval"} {
			want := false
			for _, w := range members {
				want = want || w == m
			}
			if hasMember(t, raw, m) != want {
				t.Errorf("%s task: member %q present = %v, want %v (%s)", status, m, !want, want, raw)
			}
		}
		return raw
	}
	working := createExtensionTask(t, c, "hold", `{}`).TaskID
	check(working, mcp.TaskWorking)

	cancelled := createExtensionTask(t, c, "hold", `{}`).TaskID
	c.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+cancelled+`"}`)
	check(cancelled, mcp.TaskCancelled)

	asking := createExtensionTask(t, c, "ask_two", `{}`).TaskID
	awaitInputs(t, rt, "", asking, 2)
	raw := check(asking, mcp.TaskInputRequired, "inputRequests")
	var got mcp.ExtGetTaskResult
	decode(t, raw, &got)
	if len(got.InputRequests) != 2 {
		t.Errorf("inputRequests %s: want both outstanding questions", member(t, raw, "inputRequests"))
	}
	for _, in := range got.InputRequests {
		if in.Method != mcp.MethodElicitationCreate || len(in.Params) == 0 {
			t.Errorf("input request %+v", in)
		}
	}

	g.release()
	awaitStatus(t, rt, "", working, tasks.StatusCompleted)
	raw = check(working, mcp.TaskCompleted, "result")
	if text1(t, []byte(member(t, raw, "result"))) != "held" || member(t, raw, "result", "_meta", mcp.MetaRelatedTask) != "" {
		t.Errorf("inlined result %s: want the tool's result without related-task _meta", member(t, raw, "result"))
	}
	// The result is the tools/call result the task stands for, which on
	// 2026-07-28 carries resultType (the official Tasks requester rejects
	// one without it).
	if got := member(t, raw, "result", "resultType"); got != `"complete"` {
		t.Errorf("inlined result %s: resultType %s, want \"complete\"", member(t, raw, "result"), got)
	}

	toolErr := createExtensionTask(t, c, "tool_err", `{}`).TaskID
	awaitStatus(t, rt, "", toolErr, tasks.StatusCompleted)
	raw = check(toolErr, mcp.TaskCompleted, "result")
	if member(t, raw, "result", "isError") != "true" {
		t.Errorf("a tool error is completed with result.isError: %s", raw)
	}

	failed := createExtensionTask(t, c, "rpc_err", `{}`).TaskID
	awaitStatus(t, rt, "", failed, tasks.StatusFailed)
	raw = check(failed, mcp.TaskFailed, "error")
	if member(t, raw, "error") != `{"code":-32042,"message":"quota","data":{"retryAfter":3}}` || member(t, raw, "statusMessage") != `"quota"` {
		t.Errorf("failed task %s: want the JSON-RPC error inlined and diagnostics in statusMessage", raw)
	}
}

func TestExtensionTasks_UpdateAcksAndAcceptsPartialAnswers(t *testing.T) {
	rt := newRuntime(t)
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20260728, extCaps, nil)
	id := createExtensionTask(t, c, "ask_two", `{}`).TaskID
	awaitInputs(t, rt, "", id, 2)
	got, _ := extGet(t, c, id)
	var keys []string
	for k := range got.InputRequests {
		keys = append(keys, k)
	}
	if len(keys) != 2 {
		t.Fatalf("input requests %v", got.InputRequests)
	}
	ack := c.mustCall(mcp.MethodTasksUpdate, fmt.Sprintf(`{"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"one"}},"unknown-key":{"ignored":true}}}`, id, keys[0]))
	if string(ack) != `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weft-test","version":"0.0.1"}},"resultType":"complete"}` {
		t.Errorf("tasks/update ack %s, want the empty complete result", ack)
	}
	// The very next tasks/get shows only what is still unanswered.
	got, raw := extGet(t, c, id)
	if got.Status != mcp.TaskInputRequired || len(got.InputRequests) != 1 || got.InputRequests[keys[1]].Method == "" {
		t.Fatalf("after a partial update: %s", raw)
	}
	// Answering an answered key again changes nothing.
	c.mustCall(mcp.MethodTasksUpdate, fmt.Sprintf(`{"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"again"}}}}`, id, keys[0]))
	c.mustCall(mcp.MethodTasksUpdate, fmt.Sprintf(`{"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"two"}}}}`, id, keys[1]))
	done := awaitStatus(t, rt, "", id, tasks.StatusCompleted)
	if txt := text1(t, done.Result); txt != "one+two" && txt != "two+one" {
		t.Errorf("result %q, want both first answers", txt)
	}
	wantCode(t, "unknown task", c.callErr(mcp.MethodTasksUpdate, `{"taskId":"nope","inputResponses":{}}`), jsonrpc.CodeInvalidParams)
	wantCode(t, "non-object answer", c.callErr(mcp.MethodTasksUpdate, `{"taskId":"`+id+`","inputResponses":{"k":3}}`), jsonrpc.CodeInvalidParams)
	wantCode(t, "no inputResponses", c.callErr(mcp.MethodTasksUpdate, `{"taskId":"`+id+`"}`), jsonrpc.CodeInvalidParams)
	// Updating a finished task is acknowledged and ignored.
	c.mustCall(mcp.MethodTasksUpdate, fmt.Sprintf(`{"taskId":%q,"inputResponses":{%q:{"action":"decline"}}}`, id, keys[1]))
}

func TestExtensionTasks_InputRequestKeysAreUniqueForTheTaskLife(t *testing.T) {
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	AddTool(s, &mcp.Tool{Name: "ask_twice"}, func(ctx context.Context, r *Request, _ struct{}) (string, error) {
		var names []string
		for range 2 { // the same question, asked twice in a row
			res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: nameSchema})
			if err != nil {
				return "", err
			}
			names = append(names, field(res, "name"))
		}
		return strings.Join(names, ","), nil
	}, optional)
	c := open(t, s, mcp.Version20260728, extCaps, nil)
	id := createExtensionTask(t, c, "ask_twice", `{}`).TaskID
	var answered []string
	for _, name := range []string{"a", "b"} {
		// The second question is equal to the first, yet gets its own key:
		// an answered key is never reused.
		task := awaitInputs(t, rt, "", id, 1, answered...)
		key := task.InputRequests[0].Key
		answered = append(answered, key)
		c.mustCall(mcp.MethodTasksUpdate, fmt.Sprintf(`{"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{"name":%q}}}}`, id, key, name))
	}
	if done := awaitStatus(t, rt, "", id, tasks.StatusCompleted); text1(t, done.Result) != "a,b" {
		t.Errorf("result %s", done.Result)
	}
}

func TestExtensionTasks_CancelAcksAlsoForAFinishedTask(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20260728, extCaps, nil)
	id := createExtensionTask(t, c, "hold", `{}`).TaskID
	g.awaitStart(t)
	for range 2 { // the second cancels a task that is already cancelled
		ack := c.mustCall(mcp.MethodTasksCancel, `{"taskId":"`+id+`"}`)
		if member(t, ack, "resultType") != `"complete"` {
			t.Errorf("cancel ack %s", ack)
		}
		for _, m := range []string{"taskId", "status", "result", "error", "inputRequests"} {
			if hasMember(t, ack, m) {
				t.Errorf("cancel ack %s carries %q", ack, m)
			}
		}
	}
	if cause := g.awaitEnd(t); cause != tasks.ErrCancelled {
		t.Errorf("the handler's context ended with %v", cause)
	}
	if got, _ := extGet(t, c, id); got.Status != mcp.TaskCancelled {
		t.Errorf("status %s", got.Status)
	}
	wantCode(t, "unknown task", c.callErr(mcp.MethodTasksCancel, `{"taskId":"nope"}`), jsonrpc.CodeInvalidParams)
}

func TestExtensionTasks_RemovedMethodsAreMethodNotFound(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20260728, extCaps, nil)
	wantCode(t, "tasks/result", c.callErr(mcp.MethodTasksResult, `{"taskId":"x"}`), jsonrpc.CodeMethodNotFound)
	wantCode(t, "tasks/list", c.callErr(mcp.MethodTasksList, `{}`), jsonrpc.CodeMethodNotFound)
	none := newTestServer(t, nil)
	none.AddRawTool(&mcp.Tool{Name: "t"}, nil)
	c = open(t, none, mcp.Version20260728, extCaps, nil)
	wantCode(t, "tasks/get without a runtime", c.callErr(mcp.MethodTasksGet, `{"taskId":"x"}`), jsonrpc.CodeMethodNotFound)
}

func TestExtensionTasks_TaskMethodsNeedTheExtensionOnTheRequest(t *testing.T) {
	g := newGate()
	s := taskServer(t, newRuntime(t), g, nil)
	id := createExtensionTask(t, open(t, s, mcp.Version20260728, extCaps, nil), "hold", `{}`).TaskID
	c := open(t, s, mcp.Version20260728, `{"elicitation":{}}`, nil)
	for _, req := range []struct{ method, params string }{
		{mcp.MethodTasksGet, `{"taskId":"gate-test"}`},
		{mcp.MethodTasksUpdate, `{"taskId":"gate-test","inputResponses":{}}`},
		{mcp.MethodTasksCancel, `{"taskId":"gate-test"}`},
		{mcp.MethodTasksGet, `{"taskId":"` + id + `"}`},
		{mcp.MethodTasksCancel, `{"taskId":"` + id + `"}`},
	} {
		e := c.callErr(req.method, req.params)
		wantCode(t, req.method, e, mcp.CodeMissingRequiredClientCapability)
		if member(t, e.Data, "requiredCapabilities", "extensions", mcp.ExtensionTasks) != "{}" {
			t.Errorf("%s: data %s", req.method, e.Data)
		}
	}
	g.release()
}

func TestExtensionTasks_NoInputRequestsOfUndeclaredKinds(t *testing.T) {
	rt := newRuntime(t)
	c := open(t, taskServer(t, rt, newGate(), nil), mcp.Version20260728, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, nil)
	id := createExtensionTask(t, c, "ask", `{}`).TaskID
	done := awaitStatus(t, rt, "", id, tasks.StatusFailed)
	if done.Error == nil || done.Error.Code != mcp.CodeMissingRequiredClientCapability {
		t.Errorf("a task asking for undeclared elicitation ended %+v, want failed with -32021", done)
	}
}

func TestExtensionTasks_UnknownTaskIsInvalidParams(t *testing.T) {
	c := open(t, taskServer(t, newRuntime(t), newGate(), nil), mcp.Version20260728, extCaps, nil)
	wantCode(t, "tasks/get", c.callErr(mcp.MethodTasksGet, `{"taskId":"tasks-conformance-nonexistent-12345"}`), jsonrpc.CodeInvalidParams)
	wantCode(t, "tasks/get without id", c.callErr(mcp.MethodTasksGet, `{}`), jsonrpc.CodeInvalidParams)
}

func TestExtensionTasks_NotificationsCancelledForTheCallDoNotCancelTheTask(t *testing.T) {
	rt := newRuntime(t)
	g := newGate()
	c := open(t, taskServer(t, rt, g, nil), mcp.Version20260728, extCaps, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	var created mcp.ExtCreateTaskResult
	var callID jsonrpc.ID
	err := c.conn.Call(ctx, mcp.MethodToolsCall, stdjson.RawMessage(c.withMeta(`{"name":"hold","arguments":{}}`, "")), &created,
		jsonrpc.OnID(func(id jsonrpc.ID) { callID = id }))
	if err != nil {
		t.Fatal(err)
	}
	c.notify(mcp.NotificationCancelled, fmt.Sprintf(`{"requestId":%s}`, callID.Raw()))
	c.sync()
	if got, _ := extGet(t, c, created.TaskID); got.Status != mcp.TaskWorking {
		t.Errorf("status %s after notifications/cancelled for the tools/call", got.Status)
	}
	g.release()
}

func TestExtensionTasks_ProgressBecomesTheStatusMessage(t *testing.T) {
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	step := make(chan struct{})
	s.AddRawTool(&mcp.Tool{Name: "steps"}, func(ctx context.Context, r *Request, _ stdjson.RawMessage) (*mcp.CallToolResult, error) {
		if err := r.Progress(ctx, 1, 4, ""); err != nil {
			return nil, err
		}
		<-step
		if err := r.Progress(ctx, 2, 4, "copying files"); err != nil {
			return nil, err
		}
		<-step
		return textResult("done"), nil
	}, optional)
	c := open(t, s, mcp.Version20260728, extCaps, nil)
	id := createExtensionTask(t, c, "steps", `{}`).TaskID
	awaitMessage(t, rt, "", id, "1/4")
	step <- struct{}{}
	awaitMessage(t, rt, "", id, "copying files")
	if got, _ := extGet(t, c, id); got.StatusMessage != "copying files" {
		t.Errorf("statusMessage %q", got.StatusMessage)
	}
	step <- struct{}{}
	awaitStatus(t, rt, "", id, tasks.StatusCompleted)
	c.noNote() // a modern task sends no progress notifications
}

func TestExtensionTasks_DecideChoosesPerCall(t *testing.T) {
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	AddTool(s, &mcp.Tool{Name: "maybe"}, func(_ context.Context, _ *Request, in struct {
		Big bool `json:"big"`
	}) (string, error) {
		return fmt.Sprint(in.Big), nil
	}, Tasks(TaskConfig{Support: mcp.TaskSupportOptional, Decide: func(_ context.Context, _ *Request, args stdjson.RawMessage) bool {
		return strings.Contains(string(args), `"big":true`)
	}}))
	c := open(t, s, mcp.Version20260728, extCaps, nil)
	if raw := c.mustCall(mcp.MethodToolsCall, `{"name":"maybe","arguments":{"big":false}}`); text1(t, raw) != "false" {
		t.Errorf("small call: %s, want an inline result", raw)
	}
	id := createExtensionTask(t, c, "maybe", `{"big":true}`).TaskID
	if done := awaitStatus(t, rt, "", id, tasks.StatusCompleted); text1(t, done.Result) != "true" {
		t.Errorf("big call result %s", done.Result)
	}
}

func TestExtensionTasks_InvalidArgumentsAreAnImmediateToolError(t *testing.T) {
	// The server decides whether a call becomes a task: a call whose
	// arguments fail the schema cannot run, so it is answered at once with
	// the tool error (SEP-1303) and no task is created, even for a tool
	// that requires tasks.
	rt := newRuntime(t)
	s := taskServer(t, rt, newGate(), nil)
	addCountTool(s, required)
	c := open(t, s, mcp.Version20260728, extCaps, nil)
	raw := c.mustCall(mcp.MethodToolsCall, `{"name":"count","arguments":{"n":"x"}}`)
	if member(t, raw, "resultType") != `"complete"` || hasMember(t, raw, "taskId") || member(t, raw, "isError") != "true" ||
		!containsAll(text1(t, raw), `invalid arguments for tool "count"`, "n: type") {
		t.Errorf("invalid arguments answered %s, want an immediate complete tool error naming the argument", raw)
	}
	wantCode(t, "non-object arguments", c.callErr(mcp.MethodToolsCall, `{"name":"count","arguments":"x"}`), jsonrpc.CodeInvalidParams)
	created := createExtensionTask(t, c, "count", `{"n":2}`)
	got := awaitStatus(t, rt, "", created.TaskID, tasks.StatusCompleted)
	if got.IsError {
		t.Errorf("valid arguments: the task ended with a tool error %s", got.Result)
	}
}
