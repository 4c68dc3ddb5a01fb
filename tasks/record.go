package tasks

import (
	"encoding/json"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// Record is a task as a Store keeps it: everything any instance needs to
// answer for the task, resume its input exchange or run it again.
//
// Identity fields (ID, Principal, Method, Name, Params, CreatedAt, Policy) are
// written once by Create; Update ignores them. Every other field is replaced
// by Update, subject to the rules CheckUpdate enforces.
type Record struct {
	// ID is the task ID: unguessable, unique among all tasks.
	ID string
	// Principal is who the task belongs to; only they may see or touch it.
	Principal string
	// Method and Name select the handler that runs the task (for tools/call,
	// the tool name); Params are the original request's params, kept so any
	// instance can run the task again.
	Method string
	Name   string
	Params json.RawMessage
	// Policy says what to do when the instance running the task is lost.
	Policy Policy

	// Status is the task's status; StatusMessage a human-readable line about it.
	Status        Status
	StatusMessage string
	// CreatedAt is when the task was created; UpdatedAt when its status,
	// message, input or outcome last changed (lease renewals do not count).
	CreatedAt time.Time
	UpdatedAt time.Time
	// ExpiresAt is when the task and its result may be deleted; zero means never.
	ExpiresAt time.Time
	// PollInterval is the suggested delay between a client's polls.
	PollInterval time.Duration

	// Result is the raw result of a completed task. IsError records that the
	// result is a tool error (a CallToolResult with isError: true).
	Result  json.RawMessage
	IsError bool
	// Error is the JSON-RPC error of a failed task.
	Error *jsonrpc.Error

	// Inputs are the task's input requests in the order they were made, with
	// their responses once answered. Keys are unique for the task's life;
	// recorded requests and answers are never rewritten.
	Inputs []Input

	// Owner is the instance ID that holds the execution lease, and
	// LeaseExpiresAt when that lease lapses unless renewed.
	Owner          string
	LeaseExpiresAt time.Time
	// Runs counts how many times a handler has been started for the task.
	Runs int

	// Version is the store's compare-and-swap token: Create sets it to 1 and
	// every successful Update increments it.
	Version uint64
}

// Input is one input request a task's handler made (a JSON object with the
// request's method and params) and, once answered, the response.
type Input struct {
	Key      string
	Request  json.RawMessage
	Response json.RawMessage
}

// Answered reports whether the input request has a recorded response.
func (in Input) Answered() bool { return in.Response != nil }

// Outstanding reports whether the record has an unanswered input request.
func (r *Record) Outstanding() bool {
	for _, in := range r.Inputs {
		if !in.Answered() {
			return true
		}
	}
	return false
}

// Clone returns a deep copy of r: no byte slice or pointer is shared.
func (r *Record) Clone() *Record {
	c := *r
	// All raw JSON goes into one allocation, carved into capped slices.
	n := len(r.Params) + len(r.Result)
	if r.Error != nil {
		n += len(r.Error.Data)
	}
	for _, in := range r.Inputs {
		n += len(in.Request) + len(in.Response)
	}
	buf := make([]byte, 0, n)
	c.Params, buf = carve(buf, r.Params)
	c.Result, buf = carve(buf, r.Result)
	if r.Error != nil {
		e := *r.Error
		e.Data, buf = carve(buf, r.Error.Data)
		c.Error = &e
	}
	if r.Inputs != nil {
		c.Inputs = make([]Input, len(r.Inputs))
		for i, in := range r.Inputs {
			c.Inputs[i].Key = in.Key
			c.Inputs[i].Request, buf = carve(buf, in.Request)
			c.Inputs[i].Response, buf = carve(buf, in.Response)
		}
	}
	return &c
}

// carve copies b into buf's spare capacity and returns the copy, capped at
// its length so that appending to it cannot overwrite its neighbours; nil
// stays nil.
func carve(buf, b []byte) (json.RawMessage, []byte) {
	if b == nil {
		return nil, buf
	}
	start := len(buf)
	buf = append(buf, b...)
	return json.RawMessage(buf[start:len(buf):len(buf)]), buf
}

// cloneRaw copies raw JSON, keeping nil as nil.
func cloneRaw(b json.RawMessage) json.RawMessage {
	if b == nil {
		return nil
	}
	c := make(json.RawMessage, len(b))
	copy(c, b)
	return c
}
