package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/mcp"
)

// WithTask lets CallTool run the call as a task and wait for it, so a long
// call survives past any timeout of a single request. On a 2026-07-28
// session the call declares the tasks extension and the server decides; on
// a 2025-11-25 session the call is task-augmented when the server accepts
// task-augmented tools/call and the tool allows it (the tool is looked up
// with tools/list if it has not been listed). Otherwise the call is an
// ordinary one. CallTool then returns what TaskHandle.Wait returns.
func WithTask() CallOption {
	return func(c *callConfig) { c.taskWait = true }
}

// WithTaskTTL asks a 2025-11-25 server to keep the call's task for ttl
// after its creation (the task parameter's ttl); the server may choose
// otherwise, and the task's state says what it chose. Zero leaves it to the
// server. The tasks extension has no such parameter, so modern sessions
// ignore it.
func WithTaskTTL(ttl time.Duration) CallOption {
	return func(c *callConfig) { c.taskTTL = ttl }
}

// CallToolAsTask calls a tool as a task (tools/call) and returns its handle
// once the server has created it, without waiting for the result.
//
// On a 2026-07-28 session the request declares the tasks extension, and the
// server decides: it may create a task, or answer at once (the handle is
// then already complete). Input the server asks for before creating the
// task is answered as for CallTool.
//
// On a 2025-11-25 session the request carries the task parameter (with
// WithTaskTTL's retention). The server must have declared task-augmented
// tools/call and the tool's execution.taskSupport must not forbid it (the
// tool is looked up with tools/list if it has not been listed); otherwise
// the error wraps ErrTaskNotSupported. Earlier versions have no tasks
// (ErrTaskNotInVersion).
func (s *Session) CallToolAsTask(ctx context.Context, params *mcp.CallToolParams, opts ...CallOption) (*TaskHandle, error) {
	if !s.modern() {
		if err := s.checkToolTask(ctx, params); err != nil {
			return nil, err
		}
	}
	return s.startToolTask(ctx, params, opts)
}

// checkToolTask reports why a 2025-11-25 tools/call cannot be a task.
func (s *Session) checkToolTask(ctx context.Context, params *mcp.CallToolParams) error {
	v := s.ProtocolVersion()
	if !mcp.SupportsTasksV1(v) {
		return fmt.Errorf("client: tools/call as a task: %w: %s (tasks arrived in %s)", ErrTaskNotInVersion, v, mcp.Version20251125)
	}
	if !s.ServerCapabilities().AcceptsToolCallTasks() {
		return fmt.Errorf("client: tools/call as a task: %w: the server did not declare tasks.requests.tools.call; call the tool with CallTool", ErrTaskNotSupported)
	}
	name := ""
	if params != nil {
		name = params.Name
	}
	support, err := s.toolTaskSupport(ctx, name)
	if err != nil {
		return err
	}
	if support == mcp.TaskSupportForbidden {
		return fmt.Errorf("client: tools/call %s as a task: %w: the tool's execution.taskSupport forbids it; call it with CallTool", name, ErrTaskNotSupported)
	}
	return nil
}

// runsAsTask decides whether CallTool runs a call as a task: with WithTask,
// when the era allows it; without, only when a 2025-11-25 tool the session
// has listed requires it (a plain call of such a tool is refused).
func (s *Session) runsAsTask(ctx context.Context, params *mcp.CallToolParams, wait bool) (bool, error) {
	if s.modern() {
		return wait, nil
	}
	if params == nil || !mcp.SupportsTasksV1(s.ProtocolVersion()) || !s.ServerCapabilities().AcceptsToolCallTasks() {
		return false, nil
	}
	support, known := s.tools.lookup(params.Name)
	if !wait {
		return known && support == mcp.TaskSupportRequired, nil
	}
	if !known {
		var err error
		if support, err = s.toolTaskSupport(ctx, params.Name); err != nil {
			return false, err
		}
	}
	return support != mcp.TaskSupportForbidden, nil
}

// startToolTask sends a tools/call that may become a task and returns its
// handle: a created task, or the answer the server gave at once.
func (s *Session) startToolTask(ctx context.Context, params *mcp.CallToolParams, opts []CallOption) (*TaskHandle, error) {
	if s.modern() {
		pr := prepare(s, params, append(opts[:len(opts):len(opts)], declareTasks))
		defer pr.done()
		raw, kind, err := exchange(ctx, s, mcp.MethodToolsCall, pr, true)
		if err != nil {
			return nil, err
		}
		if kind != mcp.ResultTask {
			return s.inlineAnswer(raw)
		}
		var created mcp.ExtCreateTaskResult
		if err := json.Unmarshal(raw, &created); err != nil {
			return nil, fmt.Errorf("client: tools/call: the server's task is malformed: %w", err)
		}
		st, err := extState(&created.ExtTask, nil)
		if err != nil {
			return nil, fmt.Errorf("client: tools/call: %w", err)
		}
		return s.newTaskHandle(st, created.Meta, nil), nil
	}

	pr := prepare(s, params, opts)
	if pr.params.Task == nil {
		pr.params.Task = &mcp.TaskMetadata{}
	}
	if ttl := pr.cfg.taskTTL; ttl > 0 {
		task := *pr.params.Task
		ms := ttl.Milliseconds()
		task.TTL = &ms
		pr.params.Task = &task
	}
	raw, kind, err := exchange(ctx, s, mcp.MethodToolsCall, pr, true)
	if err != nil || kind != mcp.ResultTask {
		pr.done()
		if err != nil {
			return nil, err
		}
		// A server that runs no task for the call processes it normally.
		return s.inlineAnswer(raw)
	}
	var created mcp.CreateTaskResult
	if err := json.Unmarshal(raw, &created); err != nil {
		pr.done()
		return nil, fmt.Errorf("client: tools/call: the server's task is malformed: %w", err)
	}
	st, err := legacyState(&created.Task)
	if err != nil {
		pr.done()
		return nil, fmt.Errorf("client: tools/call: %w", err)
	}
	// The call's progress token stays valid for the task's whole life.
	return s.newTaskHandle(st, created.Meta, pr.done), nil
}

// inlineAnswer makes the handle of a call the server answered at once.
func (s *Session) inlineAnswer(raw []byte) (*TaskHandle, error) {
	var res mcp.CallToolResult
	if _, err := decodeResult(mcp.MethodToolsCall, raw, &res); err != nil {
		return nil, err
	}
	return s.inlineHandle(&res), nil
}

// toolTaskSupport returns a tool's 2025-11-25 task support, listing the
// tools when the session has not seen it yet.
func (s *Session) toolTaskSupport(ctx context.Context, name string) (mcp.TaskSupport, error) {
	if support, ok := s.tools.lookup(name); ok {
		return support, nil
	}
	for _, err := range s.Tools(ctx) {
		if err != nil {
			return "", fmt.Errorf("client: looking up the task support of tool %q: %w", name, err)
		}
		if support, ok := s.tools.lookup(name); ok {
			return support, nil
		}
	}
	return "", fmt.Errorf("client: tools/call %s as a task: the server lists no tool named %q", name, name)
}

// toolTable remembers the 2025-11-25 task support of the tools the session
// has listed, to decide how to call them.
type toolTable struct {
	mu      sync.Mutex
	support map[string]mcp.TaskSupport
}

// record notes the task support of listed tools.
func (t *toolTable) record(tools []mcp.Tool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.support == nil {
		t.support = make(map[string]mcp.TaskSupport, len(tools))
	}
	for i := range tools {
		t.support[tools[i].Name] = tools[i].TaskSupport()
	}
}

// lookup returns a listed tool's task support.
func (t *toolTable) lookup(name string) (mcp.TaskSupport, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	support, ok := t.support[name]
	return support, ok
}

// forget drops what was listed, when the server says its tools changed.
func (t *toolTable) forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.support)
}
