package mcp

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
)

func ptr[T any](v T) *T { return &v }

func TestLegacyCreateTaskResultIsNested(t *testing.T) {
	r := CreateTaskResult{Task: Task{TaskID: "t1", Status: TaskWorking, CreatedAt: "2025-11-25T10:30:00Z",
		LastUpdatedAt: "2025-11-25T10:30:00Z", TTL: ptr[int64](60000), PollInterval: ptr[int64](5000)}}
	got := string(encode(t, &r))
	want := `{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":5000}}`
	if got != want {
		t.Errorf("legacy create result = %s\nwant %s", got, want)
	}
	if rt, err := ResultTypeOf([]byte(got)); err != nil || rt != ResultTask {
		t.Errorf("ResultTypeOf(legacy create) = %q, %v", rt, err)
	}
}

func TestExtCreateTaskResultIsFlat(t *testing.T) {
	r := ExtCreateTaskResult{ExtTask: ExtTask{TaskID: "t1", Status: TaskWorking, CreatedAt: "2026-07-28T10:30:00Z",
		LastUpdatedAt: "2026-07-28T10:30:00Z", TTLMs: ptr[int64](60000), PollIntervalMs: ptr[int64](1000)}}
	r.ResultType = ResultTask
	got := string(encode(t, &r))
	want := `{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-07-28T10:30:00Z","lastUpdatedAt":"2026-07-28T10:30:00Z","ttlMs":60000,"pollIntervalMs":1000}`
	if got != want {
		t.Errorf("extension create result = %s\nwant %s", got, want)
	}
	for _, forbidden := range []string{`"task"`, `"ttl"`, `"pollInterval"`, `"result"`, `"error"`, `"inputRequests"`, `"requestState"`} {
		if strings.Contains(got, forbidden+":") {
			t.Errorf("extension create result carries %s", forbidden)
		}
	}
	if rt, err := ResultTypeOf([]byte(got)); err != nil || rt != ResultTask {
		t.Errorf("ResultTypeOf(flat create) = %q, %v", rt, err)
	}
}

func TestTaskTTLNullIsAlwaysPresent(t *testing.T) {
	legacy := string(encode(t, &Task{TaskID: "a", Status: TaskWorking}))
	if !strings.Contains(legacy, `"ttl":null`) || strings.Contains(legacy, "pollInterval") {
		t.Errorf("legacy task without ttl = %s, want ttl null and no pollInterval", legacy)
	}
	ext := string(encode(t, &ExtTask{TaskID: "a", Status: TaskWorking}))
	if !strings.Contains(ext, `"ttlMs":null`) || strings.Contains(ext, "pollIntervalMs") {
		t.Errorf("extension task without ttl = %s, want ttlMs null and no pollIntervalMs", ext)
	}
	zero := string(encode(t, &ExtTask{TTLMs: ptr[int64](0)}))
	if !strings.Contains(zero, `"ttlMs":0`) {
		t.Errorf("ttlMs 0 = %s", zero)
	}
	var got ExtTask
	if err := json.Unmarshal([]byte(`{"taskId":"a","status":"working","createdAt":"c","lastUpdatedAt":"u","ttlMs":null}`), &got); err != nil || got.TTLMs != nil {
		t.Errorf("null ttlMs decoded as %v, %v", got.TTLMs, err)
	}
}

func TestLegacyTaskMessagesRoundTrip(t *testing.T) {
	// Wire examples of the 2025-11-25 tasks page.
	g := roundTrip[GetTaskResult](t, `{"taskId":"786512e2","status":"working","createdAt":"2025-11-25T10:30:00Z",
	  "lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000,"pollInterval":5000}`, "")
	if g.TaskID != "786512e2" || *g.TTL != 30000 {
		t.Errorf("tasks/get = %+v", g)
	}
	c := roundTrip[CancelTaskResult](t, `{"taskId":"786512e2","status":"cancelled","statusMessage":"The task was cancelled by request.",
	  "createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000,"pollInterval":5000}`, "")
	if !c.Status.IsTerminal() {
		t.Errorf("cancelled status not terminal: %q", c.Status)
	}
	roundTrip[GetTaskResult](t, `{"taskId":"x","status":"failed","createdAt":"a","lastUpdatedAt":"b","ttl":30000,
	  "statusMessage":"Tool execution failed: API rate limit exceeded"}`, "")
	l := roundTrip[ListTasksResult](t, `{"tasks":[{"taskId":"a","status":"working","createdAt":"c","lastUpdatedAt":"u","ttl":null},
	  {"taskId":"b","status":"completed","createdAt":"c","lastUpdatedAt":"u","ttl":1}],"nextCursor":"next-page-cursor"}`, "")
	if len(l.Tasks) != 2 || l.Tasks[0].TTL != nil {
		t.Errorf("tasks/list = %+v", l)
	}
	assertSameJSON(t, encode(t, &ListTasksResult{}), `{"tasks":[]}`)
	n := roundTrip[TaskStatusNotificationParams](t, `{"taskId":"786512e2","status":"completed","createdAt":"c","lastUpdatedAt":"u","ttl":60000,"pollInterval":5000}`, "")
	if n.Status != TaskCompleted {
		t.Errorf("status notification = %+v", n)
	}
	roundTrip[GetTaskParams](t, `{"taskId":"786512e2"}`, "")
	roundTrip[GetTaskPayloadParams](t, `{"taskId":"786512e2"}`, "")
	roundTrip[CancelTaskParams](t, `{"taskId":"786512e2"}`, "")
	roundTrip[ListTasksParams](t, `{"cursor":"optional-cursor-value"}`, "")
}

func TestExtDetailedTasks(t *testing.T) {
	// tasks/get while input is required: every outstanding request, by key.
	g := roundTrip[ExtGetTaskResult](t, `{"resultType":"complete","taskId":"t","status":"input_required","createdAt":"c","lastUpdatedAt":"u",
	  "ttlMs":60000,"pollIntervalMs":500,"inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Delete?",
	  "requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}}}}`, "")
	if g.ResultType != ResultComplete || g.Status != TaskInputRequired || g.InputRequests["confirm"].Method != MethodElicitationCreate {
		t.Errorf("input_required task = %+v", g)
	}
	// Completed: the tool result inline, isError included.
	g = roundTrip[ExtGetTaskResult](t, `{"resultType":"complete","taskId":"t","status":"completed","createdAt":"c","lastUpdatedAt":"u","ttlMs":null,
	  "result":{"content":[{"type":"text","text":"boom"}],"isError":true}}`, "")
	var res CallToolResult
	if err := json.Unmarshal(g.TaskResult, &res); err != nil || !res.IsError {
		t.Errorf("inline result = %+v, %v", res, err)
	}
	// Failed: the JSON-RPC error inline, no result.
	g = roundTrip[ExtGetTaskResult](t, `{"resultType":"complete","taskId":"t","status":"failed","statusMessage":"upstream failed",
	  "createdAt":"c","lastUpdatedAt":"u","ttlMs":1000,"error":{"code":-32603,"message":"Internal error","data":{"why":"x"}}}`, "")
	if g.Error == nil || g.Error.Code != jsonrpc.CodeInternalError || g.TaskResult != nil {
		t.Errorf("failed task = %+v", g)
	}
	// Working: no payload members at all.
	w := ExtGetTaskResult{Result: Result{ResultType: ResultComplete},
		DetailedTask: DetailedTask{ExtTask: ExtTask{TaskID: "t", Status: TaskWorking, CreatedAt: "c", LastUpdatedAt: "u"}}}
	assertSameJSON(t, encode(t, &w), `{"resultType":"complete","taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u","ttlMs":null}`)
}

func TestExtTaskNotification(t *testing.T) {
	// SEP-2663 example: notifications/tasks on a listen stream, no resultType.
	n := roundTrip[ExtTaskStatusNotificationParams](t, `{"_meta":{"io.modelcontextprotocol/subscriptionId":12},
	  "taskId":"786512e2-9e0d-44bd-8f29-789f320fe840","status":"completed",
	  "createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":60000,"pollIntervalMs":5000,
	  "result":{"content":[{"type":"text","text":"Operation completed successfully."}],"isError":false}}`, "")
	if id, err := n.Meta.SubscriptionID(); err != nil || id != jsonrpc.Int64ID(12) {
		t.Errorf("subscription id = %s, %v", id, err)
	}
}

func TestExtUpdateAndCancel(t *testing.T) {
	// SEP-2663 example: tasks/update.
	p := roundTrip[UpdateTaskParams](t, `{"taskId":"786512e2-9e0d-44bd-8f29-789f320fe840",
	  "inputResponses":{"name":{"action":"accept","content":{"name":"Luca"}}},
	  "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
	    "io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}`, "")
	if r, err := p.InputResponses.ElicitResult("name"); err != nil || r.Action != ElicitAccept {
		t.Errorf("ElicitResult = %+v, %v", r, err)
	}
	caps, err := p.Meta.ClientCapabilities()
	if err != nil || !caps.HasExtension(ExtensionTasks) {
		t.Errorf("capabilities = %+v, %v", caps, err)
	}
	// inputResponses is required, so an empty update still carries it.
	assertSameJSON(t, encode(t, &UpdateTaskParams{TaskID: "gate-test"}), `{"taskId":"gate-test","inputResponses":{}}`)
	ack := ExtCancelTaskResult{ResultType: ResultComplete}
	assertSameJSON(t, encode(t, &ack), `{"resultType":"complete"}`)
}

func TestTaskStatusIsTerminal(t *testing.T) {
	for s, want := range map[TaskStatus]bool{TaskWorking: false, TaskInputRequired: false, TaskCompleted: true, TaskFailed: true, TaskCancelled: true} {
		if got := s.IsTerminal(); got != want {
			t.Errorf("%q.IsTerminal() = %v, want %v", s, got, want)
		}
	}
}

func TestWithRelatedTask(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"content":[{"type":"text","text":"…"}],"isError":false}`,
			`{"content":[{"type":"text","text":"…"}],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
		{`{"_meta":{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"old"}},"action":"accept"}`,
			`{"_meta":{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}},"action":"accept"}`},
		{`{}`, `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
		{` { "a" : {"_meta":1}, "b":["_meta",{"_meta":2}] } `,
			` { "a" : {"_meta":1}, "b":["_meta",{"_meta":2}] ,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
		{`{"\u005fmeta":{"a":1}}`, `{"_meta":{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
		{`{"x":"\"_meta\"","_meta":{}}`, `{"x":"\"_meta\"","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
	}
	for _, tt := range tests {
		got, err := WithRelatedTask([]byte(tt.in), "786512e2")
		if err != nil {
			t.Errorf("WithRelatedTask(%s): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want { // member order is kept exactly
			t.Errorf("WithRelatedTask(%s) =\n %s\nwant\n %s", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{`[]`, `"{}"`, `7`, `{"_meta":[]}`, `{"a":`, `{"a":1,"a":2}`, `{"a":1} {}`} {
		if got, err := WithRelatedTask([]byte(bad), "x"); err == nil {
			t.Errorf("WithRelatedTask(%s) = %s, want an error", bad, got)
		}
	}
}

func TestAppendRelatedTask(t *testing.T) {
	const prefix = `{"result":`
	tests := []struct{ in, want string }{
		{`{"content":[{"type":"text","text":"…"}],"isError":false}`,
			`{"content":[{"type":"text","text":"…"}],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
		// Spaced out, as PostgreSQL's jsonb gives it back: compacted, and a
		// newline could not break a line-framed transport.
		{"{\n \"content\": [ {\"type\": \"text\", \"text\": \"a b\"} ],\n \"isError\": false }\n",
			`{"content":[{"type":"text","text":"a b"}],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
		{` { } `, `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
		{`{"_meta":{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"old"}}, "action":"accept"}`,
			`{"_meta":{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}},"action":"accept"}`},
		{`{"\u005fmeta": {"a": 1}}`, `{"_meta":{"a":1,"io.modelcontextprotocol/related-task":{"taskId":"786512e2"}}}`},
	}
	for _, tt := range tests {
		got, err := AppendRelatedTask([]byte(prefix), []byte(tt.in), "786512e2")
		if err != nil {
			t.Errorf("AppendRelatedTask(%q): %v", tt.in, err)
			continue
		}
		if string(got) != prefix+tt.want {
			t.Errorf("AppendRelatedTask(%q) =\n %s\nwant\n %s", tt.in, got, prefix+tt.want)
		}
	}
	for _, bad := range []string{`[]`, `"{}"`, `7`, `{"_meta":[]}`, `{"a":`, `{"a":1,"a":2}`, `{"a":1} {}`, "{\"a\":\"\xff\"}"} {
		got, err := AppendRelatedTask([]byte(prefix), []byte(bad), "x")
		if err == nil || string(got) != prefix {
			t.Errorf("AppendRelatedTask(%q) = %s, %v; want the prefix alone and an error", bad, got, err)
		}
	}
}
