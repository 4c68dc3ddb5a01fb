package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftmcp/weft/internal/wirejson"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// get answers tasks/get: the task, flat.
func (h *taskHost) get(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p mcp.GetTaskParams
	if err := decodeParams(req.Method, req.Params, &p); err != nil {
		return nil, err
	}
	t, err := h.rt.Get(ctx, h.principal, p.TaskID)
	if err != nil {
		return nil, taskError(p.TaskID, err)
	}
	return &mcp.GetTaskResult{Task: wireTask(t)}, nil
}

// result answers tasks/result: once the task has finished, exactly what the
// request it ran would have answered (the result, carrying the related-task
// _meta, or the JSON-RPC error). A cancelled task has no result.
func (h *taskHost) result(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p mcp.GetTaskPayloadParams
	if err := decodeParams(req.Method, req.Params, &p); err != nil {
		return nil, err
	}
	t, err := h.rt.Wait(ctx, h.principal, p.TaskID)
	if err != nil {
		return nil, taskError(p.TaskID, err)
	}
	switch t.Status {
	case tasks.StatusCompleted:
		// Checked and compacted once, and sent as it is.
		raw, err := mcp.AppendRelatedTask(nil, t.Result, t.ID)
		if err != nil {
			return nil, fmt.Errorf("client: the result of task %s: %w", t.ID, err)
		}
		return wirejson.Vouch(raw), nil
	case tasks.StatusFailed:
		return nil, t.Error
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Task %s was cancelled, so it has no result", t.ID)
}

// list answers tasks/list: one page of the session's tasks.
func (h *taskHost) list(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p mcp.ListTasksParams
	if len(req.Params) > 0 {
		if err := decodeParams(req.Method, req.Params, &p); err != nil {
			return nil, err
		}
	}
	page, next, err := h.rt.List(ctx, h.principal, p.Cursor)
	if err != nil {
		return nil, taskError("", err)
	}
	res := &mcp.ListTasksResult{NextCursor: next, Tasks: make([]mcp.Task, len(page))}
	for i, t := range page {
		res.Tasks[i] = wireTask(t)
	}
	return res, nil
}

// cancel answers tasks/cancel: the task, cancelled before the answer. A
// finished task cannot be cancelled (-32602).
func (h *taskHost) cancel(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p mcp.CancelTaskParams
	if err := decodeParams(req.Method, req.Params, &p); err != nil {
		return nil, err
	}
	t, err := h.rt.Cancel(ctx, h.principal, p.TaskID)
	if err != nil {
		return nil, taskError(p.TaskID, err)
	}
	return &mcp.CancelTaskResult{Task: wireTask(t)}, nil
}

// taskError is the JSON-RPC error of a task request the engine refused:
// -32602 for an unknown task, a finished one that cannot change, or a bad
// cursor; anything else is an internal error.
func taskError(id string, err error) error {
	var term *tasks.TerminalError
	switch {
	case errors.Is(err, tasks.ErrNotFound):
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Task not found: %q does not exist or has expired", id)
	case errors.As(err, &term):
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Cannot cancel task: already in terminal status '%s'", term.Status)
	case errors.Is(err, tasks.ErrInvalidCursor):
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid cursor: list the tasks again from the start, without a cursor")
	}
	return fmt.Errorf("client: task %s: %w", id, err)
}
