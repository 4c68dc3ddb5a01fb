package tasks

import (
	"encoding/json"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// Observer receives the Runtime's metrics as they happen, for whatever
// counters and gauges the application keeps. Calls come from many
// goroutines and must not block. Embed NopObserver to implement only some.
type Observer interface {
	// TaskTransition reports a status change this instance wrote: from is ""
	// when the task was created, to is "" when it was deleted. Summed over
	// all instances, the changes give the number of tasks in each status.
	TaskTransition(from, to Status)
	// LeaseRenewed reports a successful heartbeat for one task.
	LeaseRenewed()
	// LeaseLost reports a lease that lapsed: seen by the instance that lost
	// it, or by the instance that recovered the task.
	LeaseLost()
	// StoreCall reports one Store call: its operation name (the method
	// name), how long it took, and its error.
	StoreCall(op string, elapsed time.Duration, err error)
}

// NopObserver ignores everything; it is the default Observer.
type NopObserver struct{}

// TaskTransition implements Observer.
func (NopObserver) TaskTransition(from, to Status) {}

// LeaseRenewed implements Observer.
func (NopObserver) LeaseRenewed() {}

// LeaseLost implements Observer.
func (NopObserver) LeaseLost() {}

// StoreCall implements Observer.
func (NopObserver) StoreCall(op string, elapsed time.Duration, err error) {}

// TaskObserver is an Observer that also learns which task each status
// change is about, for metrics labelled by tool or timed per task. The
// Runtime calls TaskChanged in place of TaskTransition on an Observer that
// implements it. A task's changes are reported after they are written, by
// the goroutine that wrote each, so two changes written moments apart from
// two goroutines (an answer to a question, and the completion of the run
// it wakes) may be reported in either order; UpdatedAt says when each was
// written.
type TaskObserver interface {
	Observer
	TaskChanged(c TaskChange)
}

// TaskChange is one status change this instance wrote, as a TaskObserver
// sees it.
type TaskChange struct {
	// ID, Method and Name identify the task and what it runs (for
	// tools/call, Name is the tool).
	ID, Method, Name string
	// From is "" when the task was created, To is "" when it was deleted.
	From, To Status
	// IsError reports a completed task whose result is a tool error; Error
	// is the JSON-RPC error of a failed task.
	IsError bool
	Error   *jsonrpc.Error
	// Params are the params the task was started with (StartRequest.Params),
	// shared with the Runtime: read them during the call, never modify them.
	Params json.RawMessage
	// CreatedAt is when the task was created, UpdatedAt when this change
	// was written. Both are zero for a deletion, which the store reports
	// by ID, names and status alone (DeletedTask).
	CreatedAt, UpdatedAt time.Time
	// PrevUpdatedAt is the task's UpdatedAt before this change: for a
	// change out of input_required, when it entered that status, or last
	// changed while it stayed there (when the handler asked another
	// question, or one of several was answered). It is read from the
	// record the change was written over, so it holds on whichever
	// instance writes the change, in whatever order changes are reported.
	// It is zero for a creation or a deletion.
	PrevUpdatedAt time.Time
}

// previous is what a status change replaced: the task's status, and when
// its record last changed.
type previous struct {
	status    Status
	updatedAt time.Time
}

// previousOf is rec's state before the change about to be written to it.
func previousOf(rec *Record) previous { return previous{status: rec.Status, updatedAt: rec.UpdatedAt} }

// transition reports a status change of rec, from was, to the Observer.
func (r *Runtime) transition(rec *Record, was previous, to Status) {
	o, ok := r.cfg.observer.(TaskObserver)
	if !ok {
		r.cfg.observer.TaskTransition(was.status, to)
		return
	}
	o.TaskChanged(TaskChange{ID: rec.ID, Method: rec.Method, Name: rec.Name, From: was.status, To: to,
		IsError: rec.IsError, Error: rec.Error, Params: rec.Params,
		CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, PrevUpdatedAt: was.updatedAt})
}
