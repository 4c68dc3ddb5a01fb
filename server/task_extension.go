package server

import (
	"context"
	stdjson "encoding/json"
	"errors"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/jsonkind"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// This file is the io.modelcontextprotocol/tasks extension (SEP-2663) of
// modern requests: the server decides to answer a tools/call with a task
// (only when the request declares the extension), the client polls
// tasks/get, whose answer inlines the outcome and the outstanding
// questions, answers questions with tasks/update and cancels with
// tasks/cancel. Every tasks request must itself declare the extension.
//
// Principals: an authenticated request's tasks belong to its principal. An
// unauthenticated modern request has no identity (no session either), so
// its tasks belong to the empty principal and the task ID is the bearer
// capability: whoever knows it may read, answer and cancel the task. IDs
// carry 128 bits from crypto/rand, so they cannot be guessed, and tasks
// expire (the runtime's TTLs); serve unauthenticated clients only where
// that is acceptable.
//
// A modern request that declares only the 2025-11-25 tasks capability is a
// non-declaring client: its tasks requests get -32021, also for tasks a
// legacy session created (those stay reachable on the legacy wire, where
// they were made). This is SEP-2663's simplest conformant reading of its
// backward-compatibility table.

// startExtensionTask creates the task for a tools/call at once and answers
// with the flat CreateTaskResult, once the task is durably created.
func (s *Server) startExtensionTask(ctx context.Context, r *Request, t *serverTool, p *mcp.CallToolParams) (result, error) {
	task, err := s.startTask(ctx, r, t, newTaskCall(r), 0, nil, p)
	if err != nil {
		return nil, err
	}
	return createdTask(task), nil
}

// createdTask is the extension's CreateTaskResult for a new task.
func createdTask(t tasks.Task) *mcp.ExtCreateTaskResult {
	return &mcp.ExtCreateTaskResult{Result: mcp.Result{ResultType: mcp.ResultTask}, ExtTask: extensionTask(t)}
}

// extensionGetTask answers the extension's tasks/get: the detailed task.
func (s *Server) extensionGetTask(ctx context.Context, r *Request, id string) (result, error) {
	t, err := s.tasks.rt.Poll(ctx, r.principal, id)
	if err != nil {
		return nil, taskError(err, id)
	}
	r.aboutTask(t.ID, t.Params)
	d, err := detailedTask(t)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "task %q holds an unreadable input request: %v", id, err)
	}
	return &mcp.ExtGetTaskResult{Result: mcp.Result{ResultType: mcp.ResultComplete}, DetailedTask: d}, nil
}

// extensionCancelTask answers the extension's tasks/cancel with the empty
// acknowledgement, also for a task that has already finished.
func (s *Server) extensionCancelTask(ctx context.Context, r *Request, id string) (result, error) {
	t, err := s.tasks.rt.Cancel(ctx, r.principal, id)
	if err != nil && !errors.Is(err, tasks.ErrTerminal) {
		return nil, taskError(err, id)
	}
	if err == nil {
		r.aboutTask(t.ID, t.Params)
	}
	return &mcp.ExtCancelTaskResult{}, nil
}

// updateTask answers tasks/update (extension only): it records the answers
// to the task's outstanding input requests and acknowledges. Answers under
// keys that are not outstanding are ignored; a subset is allowed, and the
// task stays input_required until the rest arrive. The next tasks/get
// reflects the update.
func (s *Server) updateTask(ctx context.Context, r *Request, p *mcp.UpdateTaskParams) (result, error) {
	if err := s.extensionGate(r); err != nil {
		return nil, err
	}
	if p.TaskID == "" {
		return nil, needTaskID(r.method)
	}
	if p.InputResponses == nil {
		return nil, invalidParams("tasks/update needs params.inputResponses: the answers to the task's inputRequests, by key ({} for none)")
	}
	responses := make(map[string]stdjson.RawMessage, len(p.InputResponses))
	for k, v := range p.InputResponses {
		if kind := jsontext.Value(v).Kind(); kind != '{' {
			return nil, invalidParams("inputResponses[%q] must be a JSON object holding the client's result, not a JSON %s", k, jsonkind.Name(kind))
		}
		responses[k] = v
	}
	if err := s.tasks.rt.Answer(ctx, r.principal, p.TaskID, responses); err != nil {
		return nil, taskError(err, p.TaskID)
	}
	return &mcp.UpdateTaskResult{}, nil
}

// extensionGate refuses a modern tasks request that did not declare the
// extension in its own _meta (-32021); earlier requests do not count.
func (s *Server) extensionGate(r *Request) error {
	if !r.caps.HasExtension(mcp.ExtensionTasks) {
		return extensionRequired()
	}
	return nil
}
