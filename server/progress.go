package server

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/mcp"
)

// Progress reports how far the request has got, as notifications/progress
// echoing the request's progress token exactly (string or number, as sent).
// It does nothing when the request carries no progress token. progress must
// increase with every call; total is the value at completion, 0 when unknown;
// message is dropped for 2024-11-05 clients, which do not know it.
//
// Progress is allowed only while the handler runs: every notification
// reaches the client before the request's response, and once the response is
// under way Progress returns ErrRequestDone instead of sending.
//
// When the tool runs as a task, every report also becomes the task's
// statusMessage (the message, or "progress/total"), written at most once per
// the runtime's progress interval; a legacy call's progress token stays
// valid for the task's life, and Progress returns ErrRequestDone once the
// task has finished, been cancelled or expired.
func (r *Request) Progress(ctx context.Context, progress, total float64, message string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	inTask := r.inTaskLocked()
	switch {
	case inTask && r.taskEndedLocked():
		return ErrRequestDone
	case inTask:
	case !r.progress.IsValid():
		if r.mayPromote { // no notification, but the task to come shows it
			r.relatedLocked().held = progressStatus(progress, total, message)
		}
		return nil
	case r.finished:
		return ErrRequestDone
	}
	if r.sentProgress && progress <= r.lastProgress {
		return fmt.Errorf("server: progress must increase with every notification: %v does not exceed %v", progress, r.lastProgress)
	}
	if inTask {
		if err := r.taskProgressLocked(ctx, progress, total, message); err != nil {
			return err
		}
		r.sentProgress, r.lastProgress = true, progress
		return nil
	}
	p := mcp.ProgressNotificationParams{ProgressToken: r.progress, Progress: progress, Total: total}
	if mcp.SupportsProgressMessage(r.version) {
		p.Message = message
	}
	if err := r.notifyLocked(ctx, mcp.NotificationProgress, &p); err != nil {
		return err
	}
	r.sentProgress, r.lastProgress = true, progress
	if r.mayPromote {
		r.relatedLocked().held = progressStatus(progress, total, message)
	}
	return nil
}
