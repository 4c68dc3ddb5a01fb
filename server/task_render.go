package server

import (
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// The engine keeps one wire-neutral Task; each surface renders it: the
// 2025-11-25 Task (ttl, pollInterval; a tool error is "failed") and the
// extension's Task and DetailedTask (ttlMs, pollIntervalMs; a tool error is
// "completed" with the result inlined).

// wireTimeLayout is the ISO 8601 form of a task timestamp, in UTC to the
// millisecond.
const wireTimeLayout = "2006-01-02T15:04:05.000Z"

// wireTimes renders a task's creation and last update times in one
// allocation (one string, both sharing it when the times are equal): a
// legacy life rendered its task three times (created, polled, notified),
// a string per time each (BenchmarkTaskLifeCost).
func wireTimes(created, updated time.Time) (string, string) {
	var buf [2 * len(wireTimeLayout)]byte
	b := appendWireTime(buf[:0], created)
	n := len(b)
	if updated.Equal(created) {
		s := string(b)
		return s, s
	}
	s := string(appendWireTime(b, updated))
	return s[:n], s[n:]
}

// appendWireTime appends t in wireTimeLayout, field by field: the layout
// interpreter of time.AppendFormat took 0.5 µs a time, and a task's life
// renders up to six (BenchmarkAppendWireTime: 0.18 µs). Years outside
// 0–9999, which the fixed width cannot hold, go through AppendFormat.
func appendWireTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, wireTimeLayout)
	}
	hour, minute, second := t.Clock()
	dst = appendDigits(dst, year, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, int(month), 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, day, 2)
	dst = append(dst, 'T')
	dst = appendDigits(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, minute, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, second, 2)
	dst = append(dst, '.')
	dst = appendDigits(dst, t.Nanosecond()/int(time.Millisecond), 3)
	return append(dst, 'Z')
}

// appendDigits appends the non-negative n in exactly width (at most 4)
// decimal digits, zero-padded.
func appendDigits(dst []byte, n, width int) []byte {
	var digits [4]byte
	for i := width - 1; i >= 0; i-- {
		digits[i] = byte('0' + n%10)
		n /= 10
	}
	return append(dst, digits[:width]...)
}

// wireMillis renders two durations in whole milliseconds, each at least
// 1, or nil for zero (unlimited, or not suggested), in one allocation.
func wireMillis(a, b time.Duration) (*int64, *int64) {
	if a <= 0 && b <= 0 {
		return nil, nil
	}
	ms := new([2]int64)
	return millisIn(&ms[0], a), millisIn(&ms[1], b)
}

// millisIn stores d in whole milliseconds (at least 1) in *ms and returns
// ms, or nil for zero.
func millisIn(ms *int64, d time.Duration) *int64 {
	if d <= 0 {
		return nil
	}
	*ms = max(d.Milliseconds(), 1)
	return ms
}

// legacyTask renders a task for a 2025-11-25 session. A completed task
// whose result is a tool error is "failed" there, with a statusMessage
// carrying the tool's error text.
func legacyTask(t tasks.Task) mcp.Task {
	status, message := legacyStatus(t)
	created, updated := wireTimes(t.CreatedAt, t.UpdatedAt)
	ttl, poll := wireMillis(t.TTL, t.PollInterval)
	return mcp.Task{
		TaskID:        t.ID,
		Status:        status,
		StatusMessage: message,
		CreatedAt:     created,
		LastUpdatedAt: updated,
		TTL:           ttl,
		PollInterval:  poll,
	}
}

// legacyStatus returns the status and status message a 2025-11-25
// session sees of a task.
func legacyStatus(t tasks.Task) (mcp.TaskStatus, string) {
	status, message := mcp.TaskStatus(t.Status), t.StatusMessage
	if t.Status == tasks.StatusCompleted && t.IsError {
		status = mcp.TaskFailed
		if message == "" {
			message = "Tool execution failed: " + toolErrorText(t.Result) + "; tasks/result returns the tool's result"
		}
	}
	return status, message
}

// appendLegacyTask appends the JSON of legacyTask(t), byte for byte what
// encoding it gives (TestAppendLegacyTaskEncodesAsTheTask), with no
// allocation but dst's growth: the params of notifications/tasks/status,
// encoded once into the buffer the notification is sent from, instead of
// rendered, encoded and copied: sending one took 9 allocations, now 4
// (BenchmarkTaskLifeCost).
func appendLegacyTask(dst []byte, t tasks.Task) ([]byte, error) {
	status, message := legacyStatus(t)
	dst, err := appendTaskStatus(append(dst, '{'), t.ID, string(status), message)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `,"createdAt":"`...)
	dst = appendWireTime(dst, t.CreatedAt)
	dst = append(dst, `","lastUpdatedAt":"`...)
	dst = appendWireTime(dst, t.UpdatedAt)
	dst = append(dst, `","ttl":`...)
	if t.TTL > 0 {
		dst = strconv.AppendInt(dst, max(t.TTL.Milliseconds(), 1), 10)
	} else {
		dst = append(dst, "null"...)
	}
	if t.PollInterval > 0 {
		dst = append(dst, `,"pollInterval":`...)
		dst = strconv.AppendInt(dst, max(t.PollInterval.Milliseconds(), 1), 10)
	}
	return append(dst, '}'), nil
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
	created, updated := wireTimes(t.CreatedAt, t.UpdatedAt)
	ttl, poll := wireMillis(t.TTL, t.PollInterval)
	return mcp.ExtTask{
		TaskID:         t.ID,
		Status:         mcp.TaskStatus(t.Status),
		StatusMessage:  t.StatusMessage,
		CreatedAt:      created,
		LastUpdatedAt:  updated,
		TTLMs:          ttl,
		PollIntervalMs: poll,
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
