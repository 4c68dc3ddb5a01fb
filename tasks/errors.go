package tasks

import (
	"errors"
	"fmt"
)

// Errors a Store, a Bus or the Runtime return. Test for them with errors.Is;
// the typed errors below match them too.
var (
	// ErrNotFound: no task with this ID is visible. Missing, expired and
	// another principal's tasks all give exactly this error, so IDs cannot be
	// probed. Adapters answer it with -32602.
	ErrNotFound = errors.New("tasks: task not found (it does not exist, has expired, or belongs to someone else)")
	// ErrConflict: a compare-and-swap Update was based on an old version.
	// Read the task again and retry.
	ErrConflict = errors.New("tasks: the task changed since it was read; read it again and retry")
	// ErrExists: Create was given an ID that is already taken.
	ErrExists = errors.New("tasks: a task with this ID already exists")
	// ErrTerminal: the task has finished and cannot change. Match the
	// *TerminalError for the status it finished with.
	ErrTerminal = errors.New("tasks: the task has already finished")
	// ErrInvalidUpdate: a write breaks the task rules (see CheckUpdate); the
	// message says which.
	ErrInvalidUpdate = errors.New("tasks: invalid task write")
	// ErrInvalidCursor: a List cursor was not produced by this store. Start
	// again without a cursor. Adapters answer it with -32602.
	ErrInvalidCursor = errors.New("tasks: invalid list cursor; list again from the start without a cursor")
	// ErrLimit: creating the task would exceed a concurrency limit. Match the
	// *LimitError for which one.
	ErrLimit = errors.New("tasks: too many unfinished tasks")
	// ErrNoHandler: Start named a method and name no handler is registered for.
	ErrNoHandler = errors.New("tasks: no task handler is registered for this request")
	// ErrClosed: the Runtime has been closed.
	ErrClosed = errors.New("tasks: the task runtime is closed")

	// ErrCancelled is the cause (context.Cause) of a handler's context when
	// the task was cancelled (or deleted).
	ErrCancelled = errors.New("tasks: the task was cancelled")
	// ErrExpired is the cause of a handler's context when the task outlived
	// its time to live.
	ErrExpired = errors.New("tasks: the task expired")
	// ErrLeaseLost is the cause of a handler's context when this instance
	// lost the task's execution lease (another instance took the task over,
	// or the lease could not be renewed in time).
	ErrLeaseLost = errors.New("tasks: this instance lost the task's execution lease")
)

// TerminalError reports a write to a task that has already finished. The
// legacy (2025-11-25) surface answers a tasks/cancel of such a task with
// -32602; the extension surface acknowledges it.
type TerminalError struct {
	TaskID string
	Status Status // the terminal status the task finished with
}

// Error says which task finished and how.
func (e *TerminalError) Error() string {
	return fmt.Sprintf("tasks: task %s is already %s; a finished task never changes", e.TaskID, e.Status)
}

// Is matches ErrTerminal.
func (e *TerminalError) Is(target error) bool { return target == ErrTerminal }

// LimitScope names the limit a LimitError hit.
type LimitScope string

// The two concurrency limits.
const (
	LimitPrincipal LimitScope = "principal" // unfinished tasks of one principal
	LimitTotal     LimitScope = "total"     // unfinished tasks of everyone
)

// LimitError reports that a task was not created because it would exceed a
// limit on unfinished tasks. Nothing was stored.
type LimitError struct {
	Scope LimitScope
	Limit int
}

// Error says which limit was hit and what to do.
func (e *LimitError) Error() string {
	if e.Scope == LimitPrincipal {
		return fmt.Sprintf("tasks: you already have %d unfinished tasks, the most allowed; wait for one to finish or cancel one", e.Limit)
	}
	return fmt.Sprintf("tasks: the server is running its maximum of %d unfinished tasks; retry later", e.Limit)
}

// Is matches ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }
