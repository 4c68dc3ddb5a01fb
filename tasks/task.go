package tasks

import (
	"encoding/json"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// Task is what the Runtime shows of a task: everything either wire surface
// renders, in wire-neutral form. Its raw JSON (Params, Result, Error and
// the input requests) may be the store's own (see sharedRecords): read
// it, and copy it before changing it.
type Task struct {
	ID        string
	Principal string
	Method    string
	Name      string
	// Params are the params the task was started with (StartRequest.Params).
	Params json.RawMessage

	Status        Status
	StatusMessage string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// TTL is how long after CreatedAt the task is kept; zero means forever
	// (the wire's null).
	TTL time.Duration
	// PollInterval is the suggested delay before the next poll, set from
	// how the task is going (see Runtime.Get).
	PollInterval time.Duration

	// Result is set when the task completed: the original request's result.
	Result json.RawMessage
	// IsError records that Result is a tool error (isError: true). The
	// engine keeps such a task Completed; the legacy (2025-11-25) surface
	// shows it as "failed", the SEP-2663 extension as "completed" with the
	// result inlined. Either way the result itself is returned unchanged.
	IsError bool
	// Error is set when the task failed: the JSON-RPC error that the legacy
	// tasks/result returns and the extension inlines.
	Error *jsonrpc.Error

	// InputRequests are the outstanding input requests, in the order they
	// were made, while the task is input_required.
	InputRequests []InputRequest
}

// InputRequest is one outstanding input request: the key its answer must
// carry, and the request object ({"method": …, "params": …}).
type InputRequest struct {
	Key     string
	Request json.RawMessage
}

// Terminal reports whether the task has finished.
func (t Task) Terminal() bool { return t.Status.Terminal() }

// taskOf builds the view of a record. It shares the record's byte slices
// and Error, so nobody may write into the record's once it is shown.
func taskOf(rec *Record) Task {
	t := Task{
		ID:            rec.ID,
		Principal:     rec.Principal,
		Method:        rec.Method,
		Name:          rec.Name,
		Params:        rec.Params,
		Status:        rec.Status,
		StatusMessage: rec.StatusMessage,
		CreatedAt:     rec.CreatedAt,
		UpdatedAt:     rec.UpdatedAt,
		PollInterval:  rec.PollInterval,
		Result:        rec.Result,
		IsError:       rec.IsError,
		Error:         rec.Error,
	}
	if !rec.ExpiresAt.IsZero() {
		t.TTL = rec.ExpiresAt.Sub(rec.CreatedAt)
	}
	if rec.Status == StatusInputRequired {
		for _, in := range rec.Inputs {
			if !in.Answered() {
				t.InputRequests = append(t.InputRequests, InputRequest{Key: in.Key, Request: in.Request})
			}
		}
	}
	return t
}
