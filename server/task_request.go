package server

import (
	"context"
	"strconv"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// A Request runs in a task when the tool runs as one (from the start, or
// after promotion). Then Progress becomes the task's statusMessage, and a
// legacy task's progress token stays valid for the task's life: progress
// and log notifications keep flowing to the session that made the call,
// tagged with the task, until the task's run ends. A modern task has no
// stream to send them on.

// TaskID returns the ID of the task the request runs in, and whether it
// runs in one: a tool call that runs as a task (from the start, or from
// when it was promoted into one) reports its task, which a handler may
// name in logs or hand to other systems. A call that became a task while
// running reports none before that.
func (r *Request) TaskID() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task == nil {
		return "", false
	}
	return r.task.TaskID(), true
}

// attachTask moves r into the task x, whose run's context is ctx. A status
// reported while the task was being created is handed to it.
func (r *Request) attachTask(ctx context.Context, x *tasks.Exec) {
	r.mu.Lock()
	r.task, r.taskCtx, r.promoting = x, ctx, false
	var held string
	if r.related != nil {
		held, r.related.held = r.related.held, ""
	}
	r.mu.Unlock()
	if held != "" {
		x.Progress(held)
	}
}

// beginPromoting marks r as on its way into a task: until attachTask or
// abandonPromoting, progress is held for the task and log messages are
// dropped, since the request's own stream is about to end. (The last
// progress reported inline before is held too; see mayPromote.)
func (r *Request) beginPromoting() {
	r.mu.Lock()
	r.promoting = true
	r.mu.Unlock()
}

// abandonPromoting returns r to running inline: the task was not created.
func (r *Request) abandonPromoting() {
	r.mu.Lock()
	r.promoting = false
	r.mu.Unlock()
}

// endTask ends r's task run: from now on Progress returns ErrRequestDone
// and nothing more is sent. It waits for a notification being sent.
func (r *Request) endTask() {
	r.mu.Lock()
	r.taskDone = true
	r.mu.Unlock()
}

// inTaskLocked reports whether r runs in a task or is on its way into one;
// r.mu is held.
func (r *Request) inTaskLocked() bool { return r.task != nil || r.promoting }

// taskEndedLocked reports whether r's task run is over: the handler
// returned, or the task was cancelled, expired or lost; r.mu is held.
func (r *Request) taskEndedLocked() bool {
	return r.taskDone || (r.taskCtx != nil && r.taskCtx.Err() != nil)
}

// taskProgressLocked reports progress of a request in a task: as the
// task's statusMessage and, for a legacy call that carried a progress
// token, as a notification to its session; r.mu is held.
func (r *Request) taskProgressLocked(ctx context.Context, progress, total float64, message string) error {
	status := progressStatus(progress, total, message)
	if r.task == nil {
		r.relatedLocked().held = status
		return nil
	}
	r.task.Progress(status)
	if r.modern || !r.progress.IsValid() {
		return nil
	}
	p := mcp.ProgressNotificationParams{ProgressToken: r.progress, Progress: progress, Total: total}
	if mcp.SupportsProgressMessage(r.version) {
		p.Message = message
	}
	return r.taskNotifyLocked(ctx, mcp.NotificationProgress, &p)
}

// taskNotifyLocked sends a notification about a legacy task to the session
// that made the call, tagged with _meta[io.modelcontextprotocol/related-task].
// Delivery is best effort: the task carries on whether or not its client is
// still connected; r.mu is held.
func (r *Request) taskNotifyLocked(ctx context.Context, method string, params any) error {
	if r.task == nil || r.modern {
		return nil
	}
	msg, err := notification(method, params)
	if err != nil {
		return err
	}
	if msg.Params, err = mcp.WithRelatedTask(msg.Params, r.task.TaskID()); err != nil {
		return err
	}
	if err := r.send(ctx, msg); err != nil {
		r.srv.logger.Debug("server: could not send a task's notification to its session", "task", r.task.TaskID(), "method", method, "error", err)
	}
	return nil
}

// progressStatus renders a progress report as a statusMessage: the
// message, or else "progress/total" ("progress" when the total is unknown).
func progressStatus(progress, total float64, message string) string {
	if message != "" {
		return message
	}
	s := strconv.FormatFloat(progress, 'g', -1, 64)
	if total > 0 {
		s += "/" + strconv.FormatFloat(total, 'g', -1, 64)
	}
	return s
}

// roundAnswers returns the answers r's multi round-trip round knows, for a
// task created from it.
func (r *Request) roundAnswers() map[string]recordedAnswer {
	if r.round == nil {
		return nil
	}
	return r.round.known()
}
