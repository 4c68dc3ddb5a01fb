package client

import (
	"errors"
	"fmt"

	"github.com/weftmcp/weft/jsonrpc"
)

// ErrTaskCancelled is wrapped by the error of waiting for a task that ended
// cancelled, whoever cancelled it.
var ErrTaskCancelled = errors.New("the task was cancelled")

// ErrTaskNotSupported is wrapped by the error of CallToolAsTask when the
// call cannot run as a task on a 2025-11-25 session: the server did not
// declare task-augmented tools/call, or the tool's execution.taskSupport
// forbids it. Call the tool with CallTool instead. (On a 2026-07-28 session
// the server decides, and answers at once when it runs no task.)
var ErrTaskNotSupported = errors.New("the call cannot run as a task")

// ErrTaskNotInVersion is wrapped by the error of a task method the
// negotiated protocol version has no tasks for: versions before 2025-11-25.
var ErrTaskNotInVersion = errors.New("the negotiated protocol version has no tasks")

// TaskFailedError is the error of waiting for a task that failed: the
// request it ran ended in a JSON-RPC error. Err is that error when the
// server reported it (errors.As finds it through this error), and
// StatusMessage the server's explanation. A tool that reports its own
// failure (a result with isError) is not a failure here: Wait returns that
// result, as CallTool does, in both protocol eras.
type TaskFailedError struct {
	TaskID        string
	StatusMessage string
	Err           *jsonrpc.Error
}

// Error names the task and says why it failed.
func (e *TaskFailedError) Error() string {
	msg := fmt.Sprintf("client: task %s failed", e.TaskID)
	if e.StatusMessage != "" {
		msg += ": " + e.StatusMessage
	}
	if e.Err != nil {
		msg += fmt.Sprintf(" (jsonrpc error %d: %s)", e.Err.Code, e.Err.Message)
	}
	return msg
}

// Unwrap returns the JSON-RPC error the task failed with, if any.
func (e *TaskFailedError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// cancelledError is the error of a task that ended cancelled.
func cancelledError(st *TaskState) error {
	if st.StatusMessage != "" {
		return fmt.Errorf("client: task %s: %w: %s", st.ID, ErrTaskCancelled, st.StatusMessage)
	}
	return fmt.Errorf("client: task %s: %w", st.ID, ErrTaskCancelled)
}
