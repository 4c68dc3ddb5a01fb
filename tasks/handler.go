package tasks

import (
	"context"
	"encoding/json"
)

// HandlerFunc runs one task. It gets a context that ends when the task is
// cancelled, expires, or this instance loses the task (context.Cause says
// which), and an *Exec to ask for input and report progress.
//
// It returns the raw result of the original request, or an error:
//
//   - a Result completes the task. Result.IsError marks a tool error (a
//     CallToolResult with isError: true); see Task.IsError for how each wire
//     surface shows it;
//   - a *jsonrpc.Error fails the task with exactly that error, which the
//     legacy tasks/result returns and the extension inlines as "error";
//   - any other error fails the task with an internal error (-32603) whose
//     message, like the statusMessage, says why.
//
// A handler may run again on another instance (see Policy), with only what
// the task recorded: its method, name and params. It must not depend on
// values carried by the context of the request that started it.
type HandlerFunc func(ctx context.Context, x *Exec) (Result, error)

// Result is what a successful handler returns.
type Result struct {
	// Value is the original request's result: a JSON object, for tools/call
	// a CallToolResult.
	Value json.RawMessage
	// IsError records that Value is a tool error (isError: true).
	IsError bool
}

// DefaultMaxRuns is how many times a re-runnable task is started, in all,
// when its Policy does not say.
const DefaultMaxRuns = 3

// Policy says what becomes of a task whose worker is lost: the instance
// running it stopped renewing its execution lease (it crashed, hung, or was
// cut off from the store).
type Policy struct {
	// Rerun runs the task again from the start on an instance that has its
	// handler, replaying the answers already recorded for its input
	// requests. Set it only for handlers that are safe to repeat. Without
	// it a lost task fails, with a statusMessage that says its worker was
	// lost.
	Rerun bool
	// MaxRuns bounds the runs of a re-runnable task, the first included; a
	// task lost on its last run fails. Zero means DefaultMaxRuns.
	MaxRuns int
}

// maxRuns returns the run limit with the default applied.
func (p Policy) maxRuns() int {
	if p.MaxRuns > 0 {
		return p.MaxRuns
	}
	return DefaultMaxRuns
}
