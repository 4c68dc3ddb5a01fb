package server

import (
	"context"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// taskPlan is how one tools/call runs.
type taskPlan int

const (
	planInline        taskPlan = iota // run the handler and answer with its result
	planLegacyTask                    // 2025-11-25: create a task at once, answer with the nested CreateTaskResult
	planExtensionTask                 // extension: create a task at once, answer with the flat CreateTaskResult
	planPromote                       // extension: run inline up to the tool's deadline, then hand the execution to a task
)

// planTool decides how a tools/call runs, by era (see TaskConfig), or
// returns the error that refuses it.
func (s *Server) planTool(ctx context.Context, r *Request, t *serverTool, p *mcp.CallToolParams) (taskPlan, error) {
	support := t.taskSupport()
	if r.modern {
		return s.planExtension(ctx, r, t, p, support)
	}
	if s.tasks.rt == nil || !mcp.SupportsTasksV1(r.version) {
		// Without the declared capability the task param is ignored, and
		// before 2025-11-25 it does not exist: a required tool runs inline.
		return planInline, nil
	}
	switch {
	case p.Task != nil && support == mcp.TaskSupportForbidden:
		return 0, jsonrpc.NewError(jsonrpc.CodeMethodNotFound,
			"tool %q does not run as a task (its execution.taskSupport is %q): call it without params.task", p.Name, support)
	case p.Task == nil && support == mcp.TaskSupportRequired:
		return 0, jsonrpc.NewError(jsonrpc.CodeMethodNotFound,
			"Task augmentation required for tools/call requests: tool %q has execution.taskSupport %q; call it with params.task", p.Name, support)
	case p.Task != nil:
		return planLegacyTask, nil
	}
	return planInline, nil
}

// planExtension decides for a modern request, where the server decides
// and only a request declaring the extension in its own _meta may get a
// task; the legacy task param is ignored.
func (s *Server) planExtension(ctx context.Context, r *Request, t *serverTool, p *mcp.CallToolParams, support mcp.TaskSupport) (taskPlan, error) {
	if s.tasks.rt == nil || support == mcp.TaskSupportForbidden {
		return planInline, nil
	}
	if !r.caps.HasExtension(mcp.ExtensionTasks) {
		if support == mcp.TaskSupportRequired {
			return 0, extensionRequired()
		}
		return planInline, nil
	}
	c := t.task
	if support == mcp.TaskSupportOptional && c.Decide != nil && !c.Decide(ctx, r, p.Arguments) {
		return planInline, nil
	}
	if c.PromoteAfter > 0 {
		return planPromote, nil
	}
	return planExtensionTask, nil
}
