package interop_test

import (
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// taskReport is what interop/js/tasks-client.mjs reports of one tool run
// through the official Tasks requester.
type taskReport struct {
	Kind     string   `json:"kind"`
	TaskID   string   `json:"taskId"`
	Statuses []string `json:"statuses"`
	Outcome  string   `json:"outcome"`
	Text     string   `json:"text"`
	Error    string   `json:"error"`
}

// taskObservations is everything tasks-client.mjs reports.
type taskObservations struct {
	ProtocolVersion string `json:"protocolVersion"`
	Capabilities    struct {
		Inventory    string `json:"inventory"`
		Execution    bool   `json:"execution"`
		Cancellation bool   `json:"cancellation"`
	} `json:"capabilities"`
	SlowEcho    taskReport `json:"slow_echo"`
	TaskAskName taskReport `json:"task_ask_name"`
	TaskWait    taskReport `json:"task_wait"`
	Questions   []string   `json:"questions"`
	Listed      []struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
	} `json:"listed"`
}

// runTasksClient runs interop/js/tasks-client.mjs on era ("legacy" or
// "modern") with the wire arguments that name the server, and decodes what
// it observed.
func runTasksClient(t *testing.T, env []string, era string, wire ...string) *taskObservations {
	t.Helper()
	var obs taskObservations
	runScript(t, "the Tasks requester", "tasks-client.mjs", env, &obs, append([]string{era}, wire...)...)
	return &obs
}

// checkTaskObservations asserts what the Tasks requester saw of the three
// task tools on either surface: each call became a task; slow_echo and
// task_ask_name completed with their results, the latter after one
// question the requester answered; task_wait ended cancelled.
func checkTaskObservations(t *testing.T, o *taskObservations, version string) {
	t.Helper()
	if o.ProtocolVersion != version {
		t.Errorf("negotiated %q, want %q", o.ProtocolVersion, version)
	}
	if !o.Capabilities.Execution || !o.Capabilities.Cancellation {
		t.Errorf("the requester found no task execution or cancellation: %+v", o.Capabilities)
	}
	want := map[string]struct {
		report  taskReport
		outcome string
		text    string
	}{
		"slow_echo":     {o.SlowEcho, "completed", "echo: hi from a task"},
		"task_ask_name": {o.TaskAskName, "completed", "Hello, Grace!"},
		"task_wait":     {o.TaskWait, "cancelled", ""},
	}
	for name, w := range want {
		r := w.report
		if r.Kind != "task" || r.TaskID == "" {
			t.Errorf("%s ran as %q (task %q), want a task", name, r.Kind, r.TaskID)
		}
		if r.Outcome != w.outcome || r.Text != w.text {
			t.Errorf("%s ended %s with %q (error %q), want %s with %q", name, r.Outcome, r.Text, r.Error, w.outcome, w.text)
		}
	}
	if !slices.Contains(o.TaskAskName.Statuses, "input_required") {
		t.Errorf("task_ask_name went through %v, never input_required", o.TaskAskName.Statuses)
	}
	if len(o.Questions) != 1 || o.Questions[0] != "elicitation: What is your name?" {
		t.Errorf("the requester was asked %q, want the one elicitation", o.Questions)
	}
}

// TestTasksRequesterLegacy: the official Tasks requester runs weft's task
// tools on the 2025-11-25 surface over Streamable HTTP and stdio. It polls
// tasks/get to the end without calling tasks/result on input_required, so
// the task's question reaches it as a request on the session (the GET
// stream, or stdio); it lists the tasks with tasks/list.
func TestTasksRequesterLegacy(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, wire := range []string{"http", "stdio"} {
		t.Run(wire, func(t *testing.T) {
			var o *taskObservations
			if wire == "http" {
				o = runTasksClient(t, nil, "legacy", "--http", serveHTTP(t))
			} else {
				o = runTasksClient(t, []string{serveEnv + "=stdio"}, "legacy", "--stdio", self)
			}
			checkTaskObservations(t, o, mcp.LatestLegacyVersion)
			if o.Capabilities.Inventory != "server-list" {
				t.Errorf("inventory %q, want server-list (tasks/list)", o.Capabilities.Inventory)
			}
			statuses := map[string]string{}
			for _, l := range o.Listed {
				statuses[l.TaskID] = l.Status
			}
			wantListed := map[string]string{o.SlowEcho.TaskID: "completed", o.TaskAskName.TaskID: "completed", o.TaskWait.TaskID: "cancelled"}
			if !maps.Equal(statuses, wantListed) {
				t.Errorf("tasks/list = %v, want %v", statuses, wantListed)
			}
		})
	}
}

// TestTasksRequesterModern: the official Tasks requester runs weft's task
// tools on the io.modelcontextprotocol/tasks extension (2026-07-28): the
// server decides to make each call a task, the question travels in
// inputRequests and its answer in tasks/update, and the completed task's
// inlined result is a modern tools/call result.
func TestTasksRequesterModern(t *testing.T) {
	checkTaskObservations(t, runTasksClient(t, nil, "modern", "--http", serveHTTP(t)), mcp.LatestVersion)
}
