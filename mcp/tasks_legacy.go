package mcp

import (
	stdjson "encoding/json"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// This file holds the experimental tasks of protocol 2025-11-25 (tasks v1).
// Either side may host tasks: the server for tools/call, the client for
// sampling/createMessage and elicitation/create.

// TaskMetadata is the task request parameter of 2025-11-25: its presence
// asks for the request to run as a task.
type TaskMetadata struct {
	// TTL is the requested retention in milliseconds from creation; nil
	// leaves it to the receiver.
	TTL *int64 `json:"ttl,omitzero"`
}

// RelatedTaskMetadata is the value of _meta[MetaRelatedTask]: the task a
// message belongs to.
type RelatedTaskMetadata struct {
	TaskID string `json:"taskId"`
}

// Task is a 2025-11-25 task's state.
type Task struct {
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	// CreatedAt and LastUpdatedAt are ISO 8601 timestamps.
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	// TTL is the actual retention in milliseconds from creation. Always
	// encoded: nil is null, meaning unlimited.
	TTL *int64 `json:"ttl"`
	// PollInterval suggests milliseconds between polls.
	PollInterval *int64 `json:"pollInterval,omitzero"`
}

// CreateTaskResult answers a task-augmented request in 2025-11-25: the task,
// nested under "task". It has no discriminator; a client recognises it by
// the task member (see ResultTypeOf). For tools/call its _meta may carry
// MetaModelImmediateResponse.
type CreateTaskResult struct {
	Result
	Task Task `json:"task"`
}

// GetTaskResult answers tasks/get in 2025-11-25: the task, flat.
type GetTaskResult struct {
	Result
	Task
}

// CancelTaskResult answers tasks/cancel in 2025-11-25: the task, flat, in
// status cancelled. Cancelling a terminal task is -32602.
type CancelTaskResult struct {
	Result
	Task
}

// GetTaskPayloadParams are the params of tasks/result (2025-11-25), which
// blocks until the task is terminal and then answers exactly what the
// underlying request would have: its result (see WithRelatedTask) or its
// JSON-RPC error.
type GetTaskPayloadParams struct {
	RequestParams
	TaskID string `json:"taskId"`
}

// ListTasksParams are the params of tasks/list (2025-11-25).
type ListTasksParams = PaginatedParams

// ListTasksResult answers tasks/list (2025-11-25).
type ListTasksResult struct {
	Result
	NextCursor string `json:"nextCursor,omitempty"`
	Tasks      []Task `json:"tasks"`
}

// TaskStatusNotificationParams are the params of notifications/tasks/status
// (2025-11-25): the task, flat. Receivers need not send it.
type TaskStatusNotificationParams struct {
	NotificationParams
	Task
}

// WithRelatedTask returns the raw result object with
// _meta[MetaRelatedTask] set to taskID, as a 2025-11-25 tasks/result answer
// must carry it. Other members, and other _meta members, are kept in order.
func WithRelatedTask(result stdjson.RawMessage, taskID string) (stdjson.RawMessage, error) {
	if end, empty, ok := objectWithoutMeta(result); ok {
		// The usual case: a result with no _meta gets one added before its
		// closing brace, with no decoding and encoding of the rest, into
		// the one buffer returned.
		out := make([]byte, 0, len(result)+len(taskID)+len(MetaRelatedTask)+32)
		return appendRelatedMeta(append(out, result[:end]...), empty, taskID)
	}
	related, err := json.Marshal(RelatedTaskMetadata{TaskID: taskID})
	if err != nil {
		return nil, fmt.Errorf("related-task metadata could not be encoded: %w", err)
	}
	var members []member
	if err := json.Unmarshal(result, (*orderedObject)(&members)); err != nil {
		return nil, fmt.Errorf("task result is not a JSON object: %w", err)
	}
	found := false
	for i := range members {
		if members[i].name != "_meta" {
			continue
		}
		found = true
		var meta []member
		if err := json.Unmarshal(members[i].value, (*orderedObject)(&meta)); err != nil {
			return nil, fmt.Errorf("task result's _meta is not a JSON object: %w", err)
		}
		meta = setMember(meta, MetaRelatedTask, related)
		v, err := json.Marshal((*orderedObject)(&meta))
		if err != nil {
			return nil, err
		}
		members[i].value = v
	}
	if !found {
		v, err := json.Marshal((*orderedObject)(&[]member{{MetaRelatedTask, related}}))
		if err != nil {
			return nil, err
		}
		members = append(members, member{"_meta", v})
	}
	return json.Marshal((*orderedObject)(&members))
}

// AppendRelatedTask appends the raw result object to dst with
// _meta[MetaRelatedTask] set to taskID, as WithRelatedTask returns it,
// but checked and compacted as jsontext.AppendFormat appends a value: what
// it appends is one strict, compact JSON object, ready to send as it is.
// A result with no _meta is read once: 1.3 µs and one allocation
// (BenchmarkAppendRelatedTask), where WithRelatedTask and json.Marshal's
// check of its answer read it three times, in 3.2 µs and three.
func AppendRelatedTask(dst []byte, result stdjson.RawMessage, taskID string) ([]byte, error) {
	start := len(dst)
	out, err := jsontext.AppendFormat(dst, result)
	if err != nil {
		return dst, fmt.Errorf("task result is not valid JSON: %w", err)
	}
	if end, empty, ok := scanObjectWithoutMeta(out[start:]); ok {
		return appendRelatedMeta(out[:start+end], empty, taskID)
	}
	// A result with a _meta of its own, or not an object: its members are
	// decoded and encoded again, compact.
	with, err := WithRelatedTask(out[start:], taskID)
	if err != nil {
		return dst, err
	}
	return append(out[:start], with...), nil
}

// appendRelatedMeta closes out, an object's opening and members up to its
// closing brace (none when empty), with a _meta holding only
// MetaRelatedTask.
func appendRelatedMeta(out []byte, empty bool, taskID string) ([]byte, error) {
	if !empty {
		out = append(out, ',')
	}
	out = append(out, `"_meta":{"`...)
	out = append(out, MetaRelatedTask...)
	out = append(out, `":{"taskId":`...)
	out, err := jsontext.AppendQuote(out, taskID)
	if err != nil {
		return nil, fmt.Errorf("related-task metadata could not be encoded: %w", err)
	}
	return append(out, "}}}"...), nil
}

// objectWithoutMeta reports whether v is a valid JSON object with no member
// named "_meta" (ok), and if so the offset of its closing brace and whether
// it has no members. A member name written with escapes might spell
// "_meta", so it counts as one.
func objectWithoutMeta(v []byte) (end int, empty, ok bool) {
	if !jsontext.Value(v).IsValid() {
		return 0, false, false
	}
	return scanObjectWithoutMeta(v)
}

// scanObjectWithoutMeta is objectWithoutMeta for v known to be valid JSON.
func scanObjectWithoutMeta(v []byte) (end int, empty, ok bool) {
	empty = true
	depth, wantName := 0, false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			j, escaped := i+1, false
			for v[j] != '"' {
				if v[j] == '\\' {
					escaped = true
					j++
				}
				j++
			}
			if depth == 1 && wantName {
				if escaped || string(v[i+1:j]) == "_meta" {
					return 0, false, false
				}
				wantName, empty = false, false
			}
			i = j
		case '{', '[':
			depth++
			if depth == 1 {
				if v[i] != '{' {
					return 0, false, false
				}
				wantName = true
			}
		case '}', ']':
			depth--
			if depth == 0 {
				return i, empty, true
			}
		case ',':
			wantName = depth == 1
		}
	}
	return 0, false, false // a valid value that is not an object: a string, number or literal
}
