package server

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/wirejson"
	"github.com/weftmcp/weft/mcp"
)

// encodeTaskResult encodes the results every task life answers with, the
// created task and the task polled on either surface, by hand: byte for
// byte what json.Marshal writes (FuzzTaskResultEncoding), vouched for so
// that jsonrpc sends it without a second check. json.Marshal took 3.8 µs
// and 3 allocations for a completed extension task with its result and
// the stamped _meta (the map and each raw value go through reflection);
// by hand, 1.7 µs and 1 allocation (BenchmarkEncodeTaskResult), most of
// it checking the task's raw result with jsontext.AppendFormat, as
// json.Marshal does. A legacy tasks/result answer (rawResult) was checked
// and compacted as it was made, and is vouched for as it is. ok is false
// for any other result, and for what the hand encoding leaves to
// reflection (more than one _meta member, outstanding input requests, an
// error, an unusual raw value): the caller encodes res as before.
func (s *Server) encodeTaskResult(res any) (enc wirejson.Encoded, ok bool) {
	var (
		b   []byte
		err error
	)
	switch r := res.(type) {
	case *mcp.ExtCreateTaskResult:
		b, ok = s.appendResultBase(resultBuffer(&r.Result, extTaskText(&r.ExtTask)), &r.Result)
		if ok {
			b, err = appendExtTask(b, &r.ExtTask)
		}
	case *mcp.ExtGetTaskResult:
		if len(r.InputRequests) > 0 || r.Error != nil || (r.TaskResult != nil && len(r.TaskResult) == 0) {
			return enc, false
		}
		b, ok = s.appendResultBase(resultBuffer(&r.Result, extTaskText(&r.ExtTask)+len(r.TaskResult)), &r.Result)
		if ok {
			b, err = appendExtTask(b, &r.ExtTask)
		}
		if ok && err == nil && r.TaskResult != nil {
			// Reopen the task object, closed by appendExtTask, for its result.
			b = append(b[:len(b)-1], `,"result":`...)
			if b, err = jsontext.AppendFormat(b, r.TaskResult); err == nil {
				b = append(b, '}')
			}
		}
	case *mcp.CreateTaskResult:
		b, ok = s.appendResultBase(resultBuffer(&r.Result, taskText(&r.Task)), &r.Result)
		if ok {
			b = append(b, `"task":`...)
			b, err = appendTaskFields(append(b, '{'), &r.Task)
			b = append(b, '}')
		}
	case *mcp.GetTaskResult:
		b, ok = s.appendResultBase(resultBuffer(&r.Result, taskText(&r.Task)), &r.Result)
		if ok {
			b, err = appendTaskFields(b, &r.Task)
		}
	case *rawResult:
		return wirejson.Vouch(r.raw), true
	default:
		return enc, false
	}
	if !ok || err != nil {
		// json.Marshal says what is wrong, as it did before.
		return enc, false
	}
	return wirejson.Vouch(b), true
}

// resultBuffer returns a buffer for a task result of base whose other
// variable text (strings unescaped, raw values) is n bytes: every member
// name, quote and number of the task results takes less than 224 bytes.
func resultBuffer(base *mcp.Result, n int) []byte {
	for k, v := range base.Meta {
		n += len(k) + len(v)
	}
	return make([]byte, 0, 224+n+len(base.ResultType))
}

// extTaskText is the length of an extension task's strings.
func extTaskText(t *mcp.ExtTask) int {
	return len(t.TaskID) + len(t.Status) + len(t.StatusMessage) + len(t.CreatedAt) + len(t.LastUpdatedAt)
}

// taskText is the length of a 2025-11-25 task's strings.
func taskText(t *mcp.Task) int {
	return len(t.TaskID) + len(t.Status) + len(t.StatusMessage) + len(t.CreatedAt) + len(t.LastUpdatedAt)
}

// appendResultBase appends the opening of a result object and its base
// members, each followed by a comma: "_meta" when it has one member (the
// server's own info is appended as it was encoded, any other value
// checked), and "resultType" when set. ok is false for a _meta of more
// members, whose order json.Marshal chooses, or an empty raw value.
func (s *Server) appendResultBase(b []byte, base *mcp.Result) (_ []byte, ok bool) {
	b = append(b, '{')
	if len(base.Meta) > 1 {
		return b, false
	}
	for k, v := range base.Meta {
		if len(v) == 0 {
			return b, false
		}
		var err error
		b = append(b, `"_meta":{`...)
		if b, err = jsontext.AppendQuote(b, k); err != nil {
			return b, false
		}
		b = append(b, ':')
		if string(v) == s.serverInfoText {
			b = append(b, v...) // the server's info, as json.Marshal encoded it
		} else if b, err = jsontext.AppendFormat(b, v); err != nil {
			return b, false
		}
		b = append(b, "},"...)
	}
	if base.ResultType != "" {
		var err error
		b = append(b, `"resultType":`...)
		if b, err = jsontext.AppendQuote(b, base.ResultType); err != nil {
			return b, false
		}
		b = append(b, ',')
	}
	return b, true
}

// appendExtTask appends the extension task's members and closes the
// object.
func appendExtTask(b []byte, t *mcp.ExtTask) ([]byte, error) {
	b, err := appendTaskHead(b, t.TaskID, string(t.Status), t.StatusMessage, t.CreatedAt, t.LastUpdatedAt)
	return appendTaskTail(b, `,"ttlMs":`, t.TTLMs, `,"pollIntervalMs":`, t.PollIntervalMs), err
}

// appendTaskFields appends a 2025-11-25 task's members and closes the
// object.
func appendTaskFields(b []byte, t *mcp.Task) ([]byte, error) {
	b, err := appendTaskHead(b, t.TaskID, string(t.Status), t.StatusMessage, t.CreatedAt, t.LastUpdatedAt)
	return appendTaskTail(b, `,"ttl":`, t.TTL, `,"pollInterval":`, t.PollInterval), err
}

// appendTaskTail appends the members both surfaces' tasks close with,
// under their names on the surface, and closes the object: the TTL,
// null when absent, and the poll interval, omitted when absent.
func appendTaskTail(b []byte, ttlMember string, ttl *int64, pollMember string, poll *int64) []byte {
	b = appendMillis(append(b, ttlMember...), ttl)
	if poll != nil {
		b = appendMillis(append(b, pollMember...), poll)
	}
	return append(b, '}')
}

// appendTaskHead appends the members both surfaces' tasks open with.
func appendTaskHead(b []byte, id, status, message, created, updated string) ([]byte, error) {
	b, err := appendTaskStatus(b, id, status, message)
	if err != nil {
		return b, err
	}
	b = append(b, `,"createdAt":`...)
	if b, err = jsontext.AppendQuote(b, created); err != nil {
		return b, err
	}
	b = append(b, `,"lastUpdatedAt":`...)
	return jsontext.AppendQuote(b, updated)
}

// appendTaskStatus appends a task's first members: its ID, status and
// status message (omitted when empty), as both surfaces name them.
func appendTaskStatus(b []byte, id, status, message string) ([]byte, error) {
	var err error
	b = append(b, `"taskId":`...)
	if b, err = jsontext.AppendQuote(b, id); err != nil {
		return b, err
	}
	b = append(b, `,"status":`...)
	if b, err = jsontext.AppendQuote(b, status); err != nil {
		return b, err
	}
	if message != "" {
		b = append(b, `,"statusMessage":`...)
		b, err = jsontext.AppendQuote(b, message)
	}
	return b, err
}

// appendMillis appends a count of milliseconds, null when absent.
func appendMillis(b []byte, ms *int64) []byte {
	if ms == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *ms, 10)
}
