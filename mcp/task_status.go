package mcp

// TaskStatus is a task's state, the same five values on both task surfaces.
type TaskStatus string

// Task statuses. A task starts working, may move between working and
// input_required, and ends in one of the three terminal states, which never
// change.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	// TaskCompleted: the request produced a result. In 2025-11-25 a tool
	// result with isError went to TaskFailed instead; the extension keeps it
	// completed.
	TaskCompleted TaskStatus = "completed"
	// TaskFailed: the request failed (in the extension: with a JSON-RPC error).
	TaskFailed    TaskStatus = "failed"
	TaskCancelled TaskStatus = "cancelled"
)

// IsTerminal reports whether s is completed, failed or cancelled.
func (s TaskStatus) IsTerminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// GetTaskParams are the params of tasks/get on both surfaces.
type GetTaskParams struct {
	RequestParams
	TaskID string `json:"taskId"`
}

// CancelTaskParams are the params of tasks/cancel on both surfaces.
type CancelTaskParams struct {
	RequestParams
	TaskID string `json:"taskId"`
}
