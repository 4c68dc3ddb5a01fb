package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// TaskHandle is a tools/call the server runs as a task, in either protocol
// era: a 2025-11-25 task (tasks/get, tasks/result, tasks/cancel, input
// asked for during tasks/result) or one of the 2026-07-28 tasks extension
// (tasks/get with the outcome inlined, input answered with tasks/update).
// Code written against a TaskHandle works with both.
//
// A handle may also stand for a call the server answered at once: a modern
// server decides per call whether to create a task, so a fast call may come
// back complete. Such a handle has no ID, and its Status, Wait and Result
// report the result at once.
//
// A handle's methods are safe for concurrent use. It holds no resources:
// dropping it leaves the task running on the server, and Session.Task
// makes a new handle from the ID, even in a later session.
type TaskHandle struct {
	s         *Session
	id        string
	modern    bool // the extension's wire form, else 2025-11-25
	inline    *mcp.CallToolResult
	immediate string // the creation result's model-immediate-response

	mu       sync.Mutex
	created  *TaskState      // the creation result's state, until Wait uses it
	answered map[string]bool // input keys answered or being answered (extension)
	release  func()          // forgets the call's progress token once the task is done
}

// Task returns a handle on the task with the given ID, as an earlier call
// (perhaps in another session, before a restart) created it; the protocol
// encourages persisting task IDs for that. The session must speak the era
// the task was created in.
func (s *Session) Task(id string) *TaskHandle {
	return &TaskHandle{s: s, id: id, modern: s.modern()}
}

// newTaskHandle returns the handle of a task the server just created, in
// the state the creation result gave, with the result's _meta. release runs
// once the task has finished.
func (s *Session) newTaskHandle(st *TaskState, meta mcp.Meta, release func()) *TaskHandle {
	h := &TaskHandle{s: s, id: st.ID, modern: s.modern(), created: st, release: release}
	if text, err := meta.String(mcp.MetaModelImmediateResponse); err == nil {
		h.immediate = text
	}
	return h
}

// inlineHandle returns the handle of a call the server answered at once.
func (s *Session) inlineHandle(res *mcp.CallToolResult) *TaskHandle {
	return &TaskHandle{s: s, modern: s.modern(), inline: res}
}

// ID returns the task's ID, which the server generated; "" when the server
// answered the call at once and created no task.
func (h *TaskHandle) ID() string { return h.id }

// ImmediateResponse returns the text a 2025-11-25 server offered for the
// model while the task runs (the creation result's
// io.modelcontextprotocol/model-immediate-response), or "" when it offered
// none. The protocol calls it provisional and non-binding.
func (h *TaskHandle) ImmediateResponse() string { return h.immediate }

// Status asks the server for the task's current state (tasks/get). For a
// call answered at once, it reports a completed state without asking.
// An unknown or expired task is a *jsonrpc.Error with code -32602.
func (h *TaskHandle) Status(ctx context.Context) (*TaskState, error) {
	if h.inline != nil {
		raw, err := json.Marshal(h.inline)
		if err != nil {
			return nil, fmt.Errorf("client: encoding the call's result: %w", err)
		}
		return &TaskState{Status: mcp.TaskCompleted, Result: raw}, nil
	}
	if err := h.usable(mcp.MethodTasksGet); err != nil {
		return nil, err
	}
	params := &mcp.GetTaskParams{TaskID: h.id}
	var st *TaskState
	var err error
	if h.modern {
		var res mcp.ExtGetTaskResult
		if err := call(ctx, h.s, mcp.MethodTasksGet, params, &res, []CallOption{declareTasks}); err != nil {
			return nil, h.failed(mcp.MethodTasksGet, err)
		}
		st, err = extState(&res.ExtTask, &res.DetailedTask)
	} else {
		var res mcp.GetTaskResult
		if err := call(ctx, h.s, mcp.MethodTasksGet, params, &res, nil); err != nil {
			return nil, h.failed(mcp.MethodTasksGet, err)
		}
		st, err = legacyState(&res.Task)
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("client: tasks/get %s: %w", h.id, err)
	case st.ID != h.id:
		return nil, fmt.Errorf("client: tasks/get %s: the server answered with task %s", h.id, st.ID)
	}
	return st, nil
}

// Wait polls the task until it finishes and returns the tool's result. It
// honours the poll interval the server suggests (without one it backs off
// from 100 ms to 5 s) and wakes early on a status notification: a
// 2025-11-25 notifications/tasks/status, or a notifications/tasks of a
// subscription opened with Listen on the task's ID.
//
// While the task needs input, Wait answers it with the Options handlers,
// as for any request: on a 2025-11-25 session by calling tasks/result,
// during which the server sends its requests (with the task's
// related-task _meta); with the extension by answering the inputRequests
// tasks/get shows with tasks/update, each key once.
//
// A task that failed returns a *TaskFailedError, one that was cancelled an
// error wrapping ErrTaskCancelled. A tool's own failure is its result, with
// IsError set, in both eras (a 2025-11-25 server reports such a task as
// failed, the extension as completed). When ctx ends, Wait returns its
// error and the task runs on; Cancel stops it.
func (h *TaskHandle) Wait(ctx context.Context) (*mcp.CallToolResult, error) {
	if h.inline != nil {
		return h.inline, nil
	}
	if err := h.usable(mcp.MethodTasksGet); err != nil {
		return nil, err
	}
	wake, stop := h.s.taskWakes.watch(h.id)
	defer stop()
	st := h.takeCreated()
	var p poller
	for {
		if st == nil {
			var err error
			if st, err = h.Status(ctx); err != nil {
				return nil, err
			}
		}
		if st.Terminal() {
			return h.outcome(ctx, st)
		}
		if st.Status == mcp.TaskInputRequired {
			if !h.modern {
				// The server sends its requests during tasks/result, which
				// returns once the task has finished.
				return h.payload(ctx)
			}
			if err := h.answer(ctx, st.InputRequests); err != nil {
				return nil, err
			}
		}
		if err := p.wait(ctx, h.id, st.PollInterval, wake); err != nil {
			return nil, err
		}
		st = nil
	}
}

// Result returns the tool's result once the task has finished, failing as
// Wait does. On a 2025-11-25 session it sends tasks/result, which the server
// holds until the task has finished and during which it asks for any input
// the task needs; with the extension, whose tasks/get carries the outcome,
// it waits as Wait does.
func (h *TaskHandle) Result(ctx context.Context) (*mcp.CallToolResult, error) {
	if h.inline != nil {
		return h.inline, nil
	}
	if !h.modern {
		if err := h.usable(mcp.MethodTasksResult); err != nil {
			return nil, err
		}
		return h.payload(ctx)
	}
	return h.Wait(ctx)
}

// Cancel asks the server to cancel the task (tasks/cancel; never
// notifications/cancelled, which does not apply to tasks). A 2025-11-25
// server has cancelled the task when Cancel returns, and answers a task that
// has already finished with a -32602 *jsonrpc.Error; with the extension,
// cancellation is cooperative (the task may still end otherwise) and a
// finished task is acknowledged like any other. A call answered at once
// has nothing to cancel.
func (h *TaskHandle) Cancel(ctx context.Context) error {
	if h.inline != nil {
		return nil
	}
	if err := h.usable(mcp.MethodTasksCancel); err != nil {
		return err
	}
	params := &mcp.CancelTaskParams{TaskID: h.id}
	var err error
	if h.modern {
		err = call(ctx, h.s, mcp.MethodTasksCancel, params, &mcp.ExtCancelTaskResult{}, []CallOption{declareTasks})
	} else {
		err = call(ctx, h.s, mcp.MethodTasksCancel, params, &mcp.CancelTaskResult{}, nil)
	}
	if err != nil {
		return h.failed(mcp.MethodTasksCancel, err)
	}
	h.done()
	return nil
}

// usable reports an error when the session's version has no tasks.
func (h *TaskHandle) usable(method string) error {
	if h.modern || mcp.SupportsTasksV1(h.s.ProtocolVersion()) {
		return nil
	}
	return fmt.Errorf("client: %s %s: %w: %s (tasks arrived in %s)", method, h.id, ErrTaskNotInVersion, h.s.ProtocolVersion(), mcp.Version20251125)
}

// failed wraps the error of a task request, naming the request and the
// task, and saying what -32602 means: an unknown task, or, for a
// 2025-11-25 tasks/cancel, also one that has already finished.
func (h *TaskHandle) failed(method string, err error) error {
	var rpcErr *jsonrpc.Error
	switch {
	case !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams:
	case method == mcp.MethodTasksCancel && !h.modern:
		return fmt.Errorf("client: %s %s: the server refused to cancel the task: it has already finished (Wait or Result gives its outcome), or the server does not know it (it may have expired, or the ID is wrong): %w", method, h.id, err)
	default:
		return fmt.Errorf("client: %s %s: the server does not know the task (it may have expired, or the ID is wrong): %w", method, h.id, err)
	}
	return fmt.Errorf("client: %s %s: %w", method, h.id, err)
}

// takeCreated returns the creation state once, when it says the task is
// working (so the first poll can wait); other states are read afresh.
func (h *TaskHandle) takeCreated() *TaskState {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.created
	h.created = nil
	if st != nil && st.Status != mcp.TaskWorking {
		return nil
	}
	return st
}

// done runs once the task has finished or been cancelled: the call's
// progress token is forgotten.
func (h *TaskHandle) done() {
	h.mu.Lock()
	release := h.release
	h.release = nil
	h.mu.Unlock()
	if release != nil {
		release()
	}
}

// outcome turns a finished task's state into Wait's answer.
func (h *TaskHandle) outcome(ctx context.Context, st *TaskState) (*mcp.CallToolResult, error) {
	if st.Status == mcp.TaskCancelled {
		h.done()
		return nil, cancelledError(st)
	}
	if !h.modern {
		return h.payload(ctx)
	}
	h.done()
	if st.Status == mcp.TaskFailed {
		return nil, &TaskFailedError{TaskID: h.id, StatusMessage: st.StatusMessage, Err: st.Error}
	}
	if st.Result == nil {
		return nil, fmt.Errorf("client: tasks/get %s: the task is completed but the server sent no result", h.id)
	}
	return decodeToolResult(h.id, st.Result)
}

// payload fetches a 2025-11-25 task's outcome with tasks/result, which the
// server holds until the task has finished. Its answer is exactly the
// underlying call's: the tool result, or the JSON-RPC error, which becomes a
// *TaskFailedError (or a cancellation, when tasks/get says so). An answer
// that is not a tools/call result (a peer answers a cancelled task with
// only _meta) is explained by the task's status too.
func (h *TaskHandle) payload(ctx context.Context) (*mcp.CallToolResult, error) {
	var answer payloadText
	err := call(ctx, h.s, mcp.MethodTasksResult, &mcp.GetTaskPayloadParams{TaskID: h.id}, &answer, nil)
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return nil, h.settle(ctx, rpcErr, h.failed(mcp.MethodTasksResult, err))
	case err != nil:
		return nil, h.failed(mcp.MethodTasksResult, err)
	}
	res, err := decodeToolResult(h.id, answer.text)
	if err != nil {
		return nil, h.settle(ctx, nil, err)
	}
	h.done()
	return res, nil
}

// settle explains an answer to tasks/result that is not the tool's result:
// rpcErr, the JSON-RPC error it was (nil for a malformed result), or cause.
// When tasks/get says the task was cancelled or failed, that is the error;
// otherwise cause stands.
func (h *TaskHandle) settle(ctx context.Context, rpcErr *jsonrpc.Error, cause error) error {
	st, err := h.Status(ctx)
	if err != nil {
		return cause
	}
	switch st.Status {
	case mcp.TaskCancelled:
		h.done()
		return cancelledError(st)
	case mcp.TaskFailed:
		h.done()
		return &TaskFailedError{TaskID: h.id, StatusMessage: st.StatusMessage, Err: rpcErr}
	}
	if rpcErr != nil {
		return cause
	}
	return fmt.Errorf("%w (tasks/get says the task is %s)", cause, st.Status)
}

// payloadText is an answer to tasks/result kept as its JSON text, to be
// checked as a tools/call result apart from the call: an answer that is not
// one sends the client to the task's status rather than failing the call.
type payloadText struct {
	result mcp.Result // never decoded: a 2025-11-25 result has no resultType
	text   []byte
}

// ResultBase returns the result's common members, as call requires.
func (p *payloadText) ResultBase() *mcp.Result { return &p.result }

// UnmarshalJSON keeps the answer's text.
func (p *payloadText) UnmarshalJSON(text []byte) error {
	p.text = bytes.Clone(text)
	return nil
}

// decodeToolResult decodes a task's tools/call result, which must have the
// content array every tools/call result has (absent and null decode as a
// nil Content; [] as an empty one).
func decodeToolResult(id string, raw []byte) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("client: the result of task %s is not a tools/call result: %w", id, err)
	}
	if res.Content == nil {
		return nil, fmt.Errorf("client: the result of task %s is not a tools/call result: it has no content array", id)
	}
	return &res, nil
}
