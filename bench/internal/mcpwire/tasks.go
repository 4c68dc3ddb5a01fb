package mcpwire

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// Task statuses of protocol 2025-11-25 the client tells apart.
const (
	taskWorking   = "working"
	taskCompleted = "completed"
)

// Caller sends one request on an initialized session and returns its
// result; both StdioSession and HTTPSession are Callers.
type Caller interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// TaskSession runs every echo call as a 2025-11-25 task, through its whole
// life: tools/call with the task param (answered at once with the created
// task), tasks/get until the task has completed, then tasks/result for the
// tool's result. Polls follow each other at once, with no wait in between:
// the figure is what the server can sustain. It is safe for concurrent use.
type TaskSession struct {
	s            Caller
	tasks, polls atomic.Int64
}

// NewTaskSession runs the echo calls of s as tasks.
func NewTaskSession(s Caller) *TaskSession { return &TaskSession{s: s} }

// taskParams are the params of a task-augmented tools/call of echo.
type taskParams struct {
	echoParams
	Task struct{} `json:"task"` // no ttl: the server's default
}

// taskIDParams are the params of tasks/get and tasks/result.
type taskIDParams struct {
	TaskID string `json:"taskId"`
}

// taskState is the part of a task's state the client checks.
type taskState struct {
	TaskID string `json:"taskId"`
	Status string `json:"status"`
}

// Echo takes one echo call of text through a task's life. It returns nil only
// when the task was created working or completed, reached completed through
// working alone, and tasks/result gave the echo's successful answer tied to
// the task by its related-task _meta.
func (t *TaskSession) Echo(ctx context.Context, text string) error {
	raw, err := t.s.Call(ctx, "tools/call", taskParams{echoParams: echoParams{Name: ToolName, Arguments: echoArgs{Text: text}}})
	if err != nil {
		return err
	}
	var created struct {
		Task *taskState `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.Task == nil || created.Task.TaskID == "" {
		return fmt.Errorf("tools/call with a task param answered %.200q, want a CreateTaskResult (a task with a taskId)", raw)
	}
	id := created.Task.TaskID
	if err := checkProgress(created.Task.Status, id); err != nil {
		return err
	}
	for status := ""; status != taskCompleted; {
		raw, err := t.s.Call(ctx, "tasks/get", taskIDParams{TaskID: id})
		if err != nil {
			return err
		}
		t.polls.Add(1)
		var got taskState
		if err := json.Unmarshal(raw, &got); err != nil || got.TaskID != id {
			return fmt.Errorf("tasks/get of task %s answered %.200q, want that task's state", id, raw)
		}
		if err := checkProgress(got.Status, id); err != nil {
			return err
		}
		status = got.Status
	}
	raw, err = t.s.Call(ctx, "tasks/result", taskIDParams{TaskID: id})
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
	if err := checkEcho(raw, text); err != nil {
		return err
	}
	t.tasks.Add(1)
	return nil
}

// checkProgress accepts the statuses an echo task may show on its way.
func checkProgress(status, id string) error {
	if status != taskWorking && status != taskCompleted {
		return fmt.Errorf("echo task %s is %q; it can only be working or completed", id, status)
	}
	return nil
}

// PollsPerTask is the mean number of tasks/get calls per completed task so
// far, or 0 before any completed.
func (t *TaskSession) PollsPerTask() float64 {
	n := t.tasks.Load()
	if n == 0 {
		return 0
	}
	return float64(t.polls.Load()) / float64(n)
}
