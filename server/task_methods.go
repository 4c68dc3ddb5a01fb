package server

import (
	"context"

	"github.com/weftmcp/weft/mcp"
)

// The tasks methods exist only when a task runtime is configured (route
// feature featureTasks), and by era: tasks/get, tasks/result, tasks/list
// and tasks/cancel on 2025-11-25 sessions; tasks/get, tasks/update and
// tasks/cancel on modern requests that declare the extension (run lets the
// extension's methods through, and tasks/result and tasks/list stay
// -32601 there). The taskId param is the only source of truth for which
// task is meant: a related-task _meta on these requests is ignored.

// getTask answers tasks/get in either era.
func (s *Server) getTask(ctx context.Context, r *Request, p *mcp.GetTaskParams) (result, error) {
	if r.modern {
		if err := s.extensionGate(r); err != nil {
			return nil, err
		}
	}
	if p.TaskID == "" {
		return nil, needTaskID(r.method)
	}
	if r.modern {
		return s.extensionGetTask(ctx, r, p.TaskID)
	}
	return s.legacyGetTask(ctx, r, p.TaskID)
}

// cancelTask answers tasks/cancel in either era.
func (s *Server) cancelTask(ctx context.Context, r *Request, p *mcp.CancelTaskParams) (result, error) {
	if r.modern {
		if err := s.extensionGate(r); err != nil {
			return nil, err
		}
	}
	if p.TaskID == "" {
		return nil, needTaskID(r.method)
	}
	if r.modern {
		return s.extensionCancelTask(ctx, r, p.TaskID)
	}
	return s.legacyCancelTask(ctx, r, p.TaskID)
}

// listTasks answers tasks/list (2025-11-25 only): one page of the
// requestor's own tasks, with nextCursor while more remain.
func (s *Server) listTasks(ctx context.Context, r *Request, p *mcp.ListTasksParams) (result, error) {
	ts, next, err := s.tasks.rt.List(ctx, r.principal, p.Cursor)
	if err != nil {
		return nil, taskError(err, "")
	}
	res := &mcp.ListTasksResult{Tasks: make([]mcp.Task, len(ts)), NextCursor: next}
	for i, t := range ts {
		res.Tasks[i] = legacyTask(t)
	}
	return res, nil
}
