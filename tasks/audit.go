package tasks

import (
	"context"
	"log/slog"
)

// audit logs one audit event about a task at Info level. The message is
// "task <event>"; the attributes always carry the event, task ID, principal,
// method, name and this instance's ID.
func (r *Runtime) audit(ctx context.Context, event string, rec *Record, attrs ...slog.Attr) {
	if !r.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	base := []slog.Attr{
		slog.String("event", event),
		slog.String("task_id", rec.ID),
		slog.String("principal", rec.Principal),
		slog.String("method", rec.Method),
		slog.String("name", rec.Name),
		slog.String("instance", r.cfg.instanceID),
	}
	r.log.LogAttrs(ctx, slog.LevelInfo, "task "+event, append(base, attrs...)...)
}
