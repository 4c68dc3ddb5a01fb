package mcpwire

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// Task statuses the client tells apart.
const (
	taskWorking   = "working"
	taskCompleted = "completed"
)

// Caller sends one request and returns its result; name is the params
// member that names the request's target (a tool's name, a task's id),
// which a modern request over HTTP mirrors in a header. Both StdioSession
// and HTTPSession are Callers.
type Caller interface {
	CallNamed(ctx context.Context, method, name string, params any) (json.RawMessage, error)
}

// Surface is one of the two wire forms of tasks.
type Surface string

// The task surfaces.
const (
	// LegacyTasks is the 2025-11-25 surface, on an initialized session: the
	// client asks for a task (the task param of tools/call), polls tasks/get
	// and fetches the outcome with tasks/result.
	LegacyTasks Surface = "legacy"
	// ExtensionTasks is the io.modelcontextprotocol/tasks extension on
	// modern requests (ModernVersion, _meta declaring the extension on every
	// request): the server answers tools/call with a task, and tasks/get
	// inlines the outcome once the task is done.
	ExtensionTasks Surface = "extension"
)

// Surfaces lists both surfaces.
func Surfaces() []Surface { return []Surface{LegacyTasks, ExtensionTasks} }

// extensionMeta is the _meta of every modern request: the version, and
// client capabilities declaring the tasks extension.
var extensionMeta = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion + `",` +
	`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"weft-bench","version":"1.0.0"}}`)

// TaskSession runs every echo call as a task, through its whole life on one
// surface: the tools/call that creates it, tasks/get until it has
// completed, and (legacy) tasks/result for the tool's result. Polls follow
// each other at once, with no wait in between: the figure is what the
// server can sustain. It is safe for concurrent use.
type TaskSession struct {
	s                      Caller
	surface                Surface
	tasks, polls, requests atomic.Int64
}

// NewTaskSession runs the echo calls of s as tasks on surface. For
// ExtensionTasks, s must send modern requests (NewModernStdio,
// NewModernHTTP); for LegacyTasks it must be an initialized session.
func NewTaskSession(s Caller, surface Surface) *TaskSession {
	return &TaskSession{s: s, surface: surface}
}

// taskParams are the params of a task-augmented tools/call of echo.
type taskParams struct {
	echoParams
	Task struct{} `json:"task"` // no ttl: the server's default
}

// extensionCallParams are the params of a modern tools/call of echo.
type extensionCallParams struct {
	echoParams
	Meta json.RawMessage `json:"_meta"`
}

// taskIDParams are the params of tasks/get and tasks/result.
type taskIDParams struct {
	TaskID string          `json:"taskId"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// taskState is the part of a task's state the client checks.
type taskState struct {
	TaskID string `json:"taskId"`
	Status string `json:"status"`
}

// life counts the requests of one task's life until it is done.
type life struct {
	polls, requests int64
}

// call sends one request of the task's life l and counts it.
func (t *TaskSession) call(ctx context.Context, l *life, method, name string, params any) (json.RawMessage, error) {
	l.requests++
	return t.s.CallNamed(ctx, method, name, params)
}

// Echo takes one echo call of text through a task's life. It returns nil
// only when the task was created working or completed, reached completed
// through working alone, and its outcome was the echo's successful answer
// (legacy: from tasks/result, tied to the task by its related-task _meta;
// extension: inlined in the last tasks/get).
func (t *TaskSession) Echo(ctx context.Context, text string) error {
	var l life
	id, err := t.create(ctx, &l, text)
	if err != nil {
		return err
	}
	var meta json.RawMessage
	if t.surface == ExtensionTasks {
		meta = extensionMeta
	}
	var last json.RawMessage
	for status := ""; status != taskCompleted; {
		raw, err := t.call(ctx, &l, "tasks/get", id, taskIDParams{TaskID: id, Meta: meta})
		if err != nil {
			return err
		}
		l.polls++
		var got taskState
		if err := json.Unmarshal(raw, &got); err != nil || got.TaskID != id {
			return fmt.Errorf("tasks/get of task %s answered %.200q, want that task's state", id, raw)
		}
		if err := checkProgress(got.Status, id); err != nil {
			return err
		}
		status, last = got.Status, raw
	}
	if t.surface == ExtensionTasks {
		var done struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(last, &done); err != nil || len(done.Result) == 0 {
			return fmt.Errorf("tasks/get of completed task %s answered %.200q, want the tool's result inlined as result", id, last)
		}
		return t.finish(&l, checkEcho(done.Result, text))
	}
	raw, err := t.call(ctx, &l, "tasks/result", id, taskIDParams{TaskID: id})
	if err != nil {
		return err
	}
	var related struct {
		Meta struct {
			Task *taskIDParams `json:"io.modelcontextprotocol/related-task"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &related); err != nil || related.Meta.Task == nil || related.Meta.Task.TaskID != id {
		return fmt.Errorf("tasks/result of task %s answered %.200q, want _meta naming the task as related-task", id, raw)
	}
	return t.finish(&l, checkEcho(raw, text))
}

// create sends the tools/call that creates the task and returns its id.
func (t *TaskSession) create(ctx context.Context, l *life, text string) (string, error) {
	call := echoParams{Name: ToolName, Arguments: echoArgs{Text: text}}
	var created struct {
		Task       *taskState `json:"task"` // legacy: nested
		taskState             // extension: flat
		ResultType string     `json:"resultType"`
	}
	if t.surface == ExtensionTasks {
		raw, err := t.call(ctx, l, "tools/call", ToolName, extensionCallParams{echoParams: call, Meta: extensionMeta})
		if err != nil {
			return "", err
		}
		if err := json.Unmarshal(raw, &created); err != nil || created.ResultType != "task" || created.TaskID == "" {
			return "", fmt.Errorf("tools/call declaring the tasks extension answered %.200q, want a task (resultType \"task\" and a taskId)", raw)
		}
		return created.TaskID, checkProgress(created.Status, created.TaskID)
	}
	raw, err := t.call(ctx, l, "tools/call", ToolName, taskParams{echoParams: call})
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.Task == nil || created.Task.TaskID == "" {
		return "", fmt.Errorf("tools/call with a task param answered %.200q, want a CreateTaskResult (a task with a taskId)", raw)
	}
	return created.Task.TaskID, checkProgress(created.Task.Status, created.Task.TaskID)
}

// finish counts a task whose outcome checked out, with its life's requests.
func (t *TaskSession) finish(l *life, err error) error {
	if err == nil {
		t.polls.Add(l.polls)
		t.requests.Add(l.requests)
		t.tasks.Add(1)
	}
	return err
}

// checkProgress accepts the statuses an echo task may show on its way.
func checkProgress(status, id string) error {
	if status != taskWorking && status != taskCompleted {
		return fmt.Errorf("echo task %s is %q; it can only be working or completed", id, status)
	}
	return nil
}

// PollsPerTask is the mean number of tasks/get calls in the life of a task
// completed so far, or 0 before any completed.
func (t *TaskSession) PollsPerTask() float64 { return t.perTask(t.polls.Load()) }

// RequestsPerTask is the mean number of requests (create, polls, result) in
// the life of a task completed so far, or 0 before any completed.
func (t *TaskSession) RequestsPerTask() float64 { return t.perTask(t.requests.Load()) }

// perTask divides n by the completed tasks, or is 0 before any completed.
func (t *TaskSession) perTask(n int64) float64 {
	done := t.tasks.Load()
	if done == 0 {
		return 0
	}
	return float64(n) / float64(done)
}
