package client

import (
	"context"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// taskStatus handles a status notification about a task the server runs:
// notifications/tasks/status (2025-11-25, on any stream) or
// notifications/tasks (the extension, only on an open subscription); each
// only in its own era. It
// wakes the task's Waits and reaches Options.OnTaskStatus. Notifications
// only hint: Wait reads the state with tasks/get either way, as the
// protocol has requestors keep polling.
func (s *Session) taskStatus(ctx context.Context, req *jsonrpc.Request) {
	var st *TaskState
	var err error
	switch modern := s.modern(); {
	case req.Method == mcp.NotificationTasksStatus && !modern:
		var p mcp.TaskStatusNotificationParams
		if !s.decode(req, &p) {
			return
		}
		st, err = legacyState(&p.Task)
	case req.Method == mcp.NotificationTasks && modern:
		var p mcp.ExtTaskStatusNotificationParams
		if !s.decode(req, &p) {
			return
		}
		if !s.subs.open(p.Meta) {
			s.client.logger.Debug("client: dropping a notification that belongs to no open subscription", "method", req.Method)
			return
		}
		st, err = extState(&p.ExtTask, &p.DetailedTask)
	default:
		s.client.logger.Debug("client: dropping a task notification of the other protocol era", "method", req.Method)
		return
	}
	if err != nil {
		s.client.logger.Warn("client: dropping a task status notification that describes no valid task", "method", req.Method, "error", err)
		return
	}
	s.taskWakes.wake(st.ID)
	if cb := s.opts.OnTaskStatus; cb != nil {
		cb(ctx, st)
	}
}
