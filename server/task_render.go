package server

import (
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// The engine keeps one wire-neutral Task; each surface renders it: the
// 2025-11-25 Task (ttl, pollInterval; a tool error is "failed") and the
// extension's Task and DetailedTask (ttlMs, pollIntervalMs; a tool error is
// "completed" with the result inlined).

// wireTime is the ISO 8601 form of a task timestamp, in UTC to the
// millisecond.
func wireTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// wireMillis is a duration in whole milliseconds, at least 1, or nil for
// zero (unlimited, or not suggested).
func wireMillis(d time.Duration) *int64 {
	if d <= 0 {
		return nil
	}
	ms := max(d.Milliseconds(), 1)
	return &ms
}

// legacyTask renders a task for a 2025-11-25 session. A completed task
// whose result is a tool error is "failed" there, with a statusMessage
// carrying the tool's error text.
func legacyTask(t tasks.Task) mcp.Task {
	status, message := mcp.TaskStatus(t.Status), t.StatusMessage
	if t.Status == tasks.StatusCompleted && t.IsError {
		status = mcp.TaskFailed
		if message == "" {
			message = "Tool execution failed: " + toolErrorText(t.Result) + "; tasks/result returns the tool's result"
		}
	}
	return mcp.Task{
		TaskID:        t.ID,
		Status:        status,
		StatusMessage: message,
		CreatedAt:     wireTime(t.CreatedAt),
		LastUpdatedAt: wireTime(t.UpdatedAt),
		TTL:           wireMillis(t.TTL),
		PollInterval:  wireMillis(t.PollInterval),
	}
}

// toolErrorText returns the text of a tool error result's first text
// block, or a placeholder.
func toolErrorText(raw []byte) string {
	var res mcp.CallToolResult
	if json.Unmarshal(raw, &res) == nil {
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok && tc.Text != "" {
				return truncateText(tc.Text, 200)
			}
		}
	}
	return "the tool reported an error"
}

// extensionTask renders a task for the extension.
func extensionTask(t tasks.Task) mcp.ExtTask {
	return mcp.ExtTask{
		TaskID:         t.ID,
		Status:         mcp.TaskStatus(t.Status),
		StatusMessage:  t.StatusMessage,
		CreatedAt:      wireTime(t.CreatedAt),
		LastUpdatedAt:  wireTime(t.UpdatedAt),
		TTLMs:          wireMillis(t.TTL),
		PollIntervalMs: wireMillis(t.PollInterval),
	}
}

// detailedTask renders a task with its status payload, as the extension's
// tasks/get and notifications/tasks carry it: every outstanding input
// request while input_required, the result (a tool error included) when
// completed, the JSON-RPC error when failed.
func detailedTask(t tasks.Task) (mcp.DetailedTask, error) {
	d := mcp.DetailedTask{ExtTask: extensionTask(t)}
	switch t.Status {
	case tasks.StatusInputRequired:
		d.InputRequests = make(mcp.InputRequests, len(t.InputRequests))
		for _, in := range t.InputRequests {
			var req mcp.InputRequest
			if err := json.Unmarshal(in.Request, &req); err != nil {
				return mcp.DetailedTask{}, err
			}
			d.InputRequests[in.Key] = req
		}
	case tasks.StatusCompleted:
		d.TaskResult = t.Result
	case tasks.StatusFailed:
		d.Error = t.Error
	}
	return d, nil
}
