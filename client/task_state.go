package client

import (
	stdjson "encoding/json"
	"fmt"
	"time"

	"github.com/weftmcp/weft/internal/millis"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// TaskState is what the server last reported about a task, the same in
// both wire forms: the 2025-11-25 tasks and the tasks extension of
// 2026-07-28. The members only the extension carries (InputRequests,
// Result, Error) are empty for a 2025-11-25 task, whose outcome comes from
// TaskHandle.Result instead.
type TaskState struct {
	ID            string
	Status        mcp.TaskStatus
	StatusMessage string
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps, as sent.
	CreatedAt     string
	LastUpdatedAt string
	// TTL is how long after CreatedAt the server keeps the task; nil means
	// it keeps it until it is done with it (the wire's null).
	TTL *time.Duration
	// PollInterval is how often the server suggests polling; 0 when it
	// suggests nothing.
	PollInterval time.Duration

	// InputRequests are an input_required task's outstanding requests for
	// input, by key (extension only).
	InputRequests mcp.InputRequests
	// Result is a completed task's result, raw (extension only).
	Result stdjson.RawMessage
	// Error is the JSON-RPC error a failed task failed with (extension only).
	Error *jsonrpc.Error
}

// Terminal reports whether the task has finished: completed, failed or
// cancelled. A finished task never changes again.
func (st *TaskState) Terminal() bool { return st.Status.IsTerminal() }

// legacyState converts a 2025-11-25 task.
func legacyState(t *mcp.Task) (*TaskState, error) {
	st := &TaskState{
		ID:            t.TaskID,
		Status:        t.Status,
		StatusMessage: t.StatusMessage,
		CreatedAt:     t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt,
		TTL:           wireDuration(t.TTL),
	}
	if t.PollInterval != nil {
		st.PollInterval = *wireDuration(t.PollInterval)
	}
	return st, st.check()
}

// extState converts a task of the tasks extension, with its payload when
// it is a detailed task.
func extState(t *mcp.ExtTask, detail *mcp.DetailedTask) (*TaskState, error) {
	st := &TaskState{
		ID:            t.TaskID,
		Status:        t.Status,
		StatusMessage: t.StatusMessage,
		CreatedAt:     t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt,
		TTL:           wireDuration(t.TTLMs),
	}
	if t.PollIntervalMs != nil {
		st.PollInterval = *wireDuration(t.PollIntervalMs)
	}
	if detail != nil {
		st.InputRequests, st.Result, st.Error = detail.InputRequests, detail.TaskResult, detail.Error
	}
	return st, st.check()
}

// check rejects a task the server described in a way no task can be.
func (st *TaskState) check() error {
	switch {
	case st.ID == "":
		return fmt.Errorf("the server described a task without a taskId")
	case !st.Status.IsTerminal() && st.Status != mcp.TaskWorking && st.Status != mcp.TaskInputRequired:
		return fmt.Errorf("the server gave task %s the status %q, which is not one of working, input_required, completed, failed or cancelled", st.ID, st.Status)
	}
	return nil
}

// wireDuration converts a wire duration in milliseconds: nil stays nil, a
// negative value counts as zero and one too large for a time.Duration as
// the largest.
func wireDuration(ms *int64) *time.Duration {
	if ms == nil {
		return nil
	}
	d := millis.Duration(max(*ms, 0))
	return &d
}
