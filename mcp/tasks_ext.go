package mcp

import (
	stdjson "encoding/json"

	"github.com/weftmcp/weft/jsonrpc"
)

// This file holds the io.modelcontextprotocol/tasks extension (SEP-2663) used
// with modern protocol versions. It is not wire-compatible with the
// 2025-11-25 tasks: durations carry units (ttlMs, pollIntervalMs), the
// creation result is flat with resultType "task", and tasks/get inlines the
// outcome. Only tools/call may create a task, only when the request declared
// the extension, and only the server decides.

// ExtTask is a task's state in the extension.
type ExtTask struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps.
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTLMs is the retention in milliseconds from creation and may change.
	// Always encoded: nil is null, meaning unlimited.
	TTLMs *int64 `json:"ttlMs"`
	// PollIntervalMs suggests milliseconds between polls and may change.
	PollIntervalMs *int64 `json:"pollIntervalMs,omitzero"`
}

// DetailedTask is a task with its status-specific payload inlined, as
// tasks/get and notifications/tasks carry it: InputRequests (all outstanding,
// keys unique for the task's life) when input_required, TaskResult when
// completed, Error when failed, none otherwise.
type DetailedTask struct {
	ExtTask
	InputRequests InputRequests `json:"inputRequests,omitempty"`
	// TaskResult is the underlying request's result, raw (for tools/call a
	// CallToolResult, isError included).
	TaskResult stdjson.RawMessage `json:"result,omitzero"`
	// Error is the JSON-RPC error the underlying request failed with.
	Error *jsonrpc.Error `json:"error,omitzero"`
}

// ExtCreateTaskResult answers tools/call when the server runs it as a task:
// Result and the task, flat, with ResultType ResultTask. It is sent only once
// the task is durably created, and never carries a payload or requestState.
type ExtCreateTaskResult struct {
	Result
	ExtTask
}

// ExtGetTaskResult answers tasks/get: the detailed task with ResultType
// ResultComplete, whatever the task's own status. An unknown task is -32602.
type ExtGetTaskResult struct {
	Result
	DetailedTask
}

// UpdateTaskParams are the params of tasks/update: answers to the task's
// outstanding input requests. Keys not outstanding are ignored and a subset
// is allowed.
type UpdateTaskParams struct {
	RequestParams
	TaskID string `json:"taskId"`
	// InputResponses is required; nil encodes as {}.
	InputResponses InputResponses `json:"inputResponses"`
}

// UpdateTaskResult acknowledges tasks/update: an empty result with ResultType
// ResultComplete. The update may show in tasks/get only later.
type UpdateTaskResult = Result

// ExtCancelTaskResult acknowledges tasks/cancel: an empty result with
// ResultType ResultComplete, also for a task that is already terminal.
// Cancellation is cooperative; the task may still end otherwise.
type ExtCancelTaskResult = Result

// ExtTaskStatusNotificationParams are the params of notifications/tasks: the
// full detailed task, as tasks/get would return it but without resultType,
// on a subscriptions/listen stream (with _meta[MetaSubscriptionID]).
type ExtTaskStatusNotificationParams struct {
	NotificationParams
	DetailedTask
}
