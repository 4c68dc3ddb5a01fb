package client

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/internal/millis"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// This file holds client-hosted tasks (2025-11-25 only; the 2026-07-28
// protocol has none): a server may ask for sampling/createMessage or
// elicitation/create as a task, then poll the client for it with
// tasks/get, tasks/result, tasks/list and tasks/cancel. The client runs
// such requests on the task engine of Options.Tasks.

// registerHostedTasks makes the engine run the requests a server may send
// as tasks, with the client's handlers.
func (c *Client) registerHostedTasks(rt *tasks.Runtime) {
	for _, method := range []string{mcp.MethodSamplingCreateMessage, mcp.MethodElicitationCreate} {
		rt.Register(method, "", c.runHostedTask, tasks.Policy{})
	}
}

// runHostedTask runs one client-hosted task: the request for input it
// stands for, answered by the configured handler. A request the client
// will not serve fails the task with the JSON-RPC error it would have got.
func (c *Client) runHostedTask(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
	res, err := c.serveInput(ctx, x.Method(), x.Params())
	if err != nil {
		return tasks.Result{}, refused(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return tasks.Result{}, fmt.Errorf("encoding the handler's result: %w", err)
	}
	return tasks.Result{Value: raw}, nil
}

// taskHost serves one legacy session's client-hosted tasks.
type taskHost struct {
	rt        *tasks.Runtime
	principal string // the session's server: only it sees the tasks
	logger    *slog.Logger

	ctx     context.Context // ends with the session
	stop    context.CancelFunc
	mu      sync.Mutex
	closed  bool           // close was called; guarded by mu
	reports sync.WaitGroup // the goroutines sending status notifications; Add under mu
}

// newTaskHost returns the task host of a new session.
func newTaskHost(c *Client) *taskHost {
	ctx, stop := context.WithCancel(context.Background())
	return &taskHost{
		rt:        c.opts.Tasks,
		principal: "weft-client-session-" + rand.Text(),
		logger:    c.logger,
		ctx:       ctx,
		stop:      stop,
	}
}

// close stops the status notifications; the tasks themselves run on.
func (h *taskHost) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.stop()
	h.reports.Wait()
}

// serve serves a request that belongs to client-hosted tasks: the tasks/*
// methods, and a task-augmented sampling/createMessage or
// elicitation/create. handled is false for any other request.
func (h *taskHost) serve(ctx context.Context, s *Session, req *jsonrpc.Request) (res any, handled bool, err error) {
	switch req.Method {
	case mcp.MethodTasksGet:
		res, err = h.get(ctx, req)
	case mcp.MethodTasksResult:
		res, err = h.result(ctx, req)
	case mcp.MethodTasksList:
		res, err = h.list(ctx, req)
	case mcp.MethodTasksCancel:
		res, err = h.cancel(ctx, req)
	case mcp.MethodSamplingCreateMessage, mcp.MethodElicitationCreate:
		var aug struct {
			Task *mcp.TaskMetadata `json:"task"`
		}
		if len(req.Params) == 0 || json.Unmarshal(req.Params, &aug) != nil || aug.Task == nil {
			return nil, false, nil // not a task: served as an ordinary request
		}
		res, err = h.start(ctx, s, req, aug.Task)
	default:
		return nil, false, nil
	}
	return res, true, err
}

// start runs a task-augmented request as a task and answers at once with
// the created task. The request is checked first, so one the client would
// refuse is refused now, not as a failed task.
func (h *taskHost) start(ctx context.Context, s *Session, req *jsonrpc.Request, meta *mcp.TaskMetadata) (any, error) {
	if _, err := s.client.prepareInput(req.Method, req.Params); err != nil {
		return nil, err
	}
	var ttl time.Duration
	if meta.TTL != nil && *meta.TTL > 0 {
		ttl = millis.Duration(*meta.TTL)
	}
	t, err := h.rt.Start(ctx, tasks.StartRequest{Principal: h.principal, Method: req.Method, Params: req.Params, TTL: ttl})
	if err != nil {
		if errors.Is(err, tasks.ErrLimit) {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "%s", err.Error())
		}
		return nil, fmt.Errorf("client: running %s as a task: %w", req.Method, err)
	}
	h.mu.Lock()
	if !h.closed {
		h.reports.Add(1)
		go h.report(s, t)
	}
	h.mu.Unlock()
	return &mcp.CreateTaskResult{Task: wireTask(t)}, nil
}

// report sends notifications/tasks/status to the server each time the task
// changes, until it has finished or the session ends.
func (h *taskHost) report(s *Session, created tasks.Task) {
	defer h.reports.Done()
	for t, err := range h.rt.Watch(h.ctx, h.principal, created.ID) {
		if err != nil {
			return
		}
		if t.Status == created.Status && t.UpdatedAt.Equal(created.UpdatedAt) {
			continue // the server has it from the creation result
		}
		p := &mcp.TaskStatusNotificationParams{Task: wireTask(t)}
		if err := s.notify(h.ctx, mcp.NotificationTasksStatus, p); err != nil {
			if h.ctx.Err() == nil && s.conn.Err() == nil {
				h.logger.Warn("client: could not send notifications/tasks/status", "task", t.ID, "error", err)
			}
			return
		}
	}
}

// wireTask renders a task in the 2025-11-25 form. A tool error result makes
// a task failed there.
func wireTask(t tasks.Task) mcp.Task {
	w := mcp.Task{
		TaskID:        t.ID,
		Status:        mcp.TaskStatus(t.Status),
		StatusMessage: t.StatusMessage,
		CreatedAt:     t.CreatedAt.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: t.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}
	if t.Status == tasks.StatusCompleted && t.IsError {
		w.Status = mcp.TaskFailed
	}
	if t.TTL > 0 {
		ms := t.TTL.Milliseconds()
		w.TTL = &ms
	}
	if t.PollInterval > 0 {
		ms := t.PollInterval.Milliseconds()
		w.PollInterval = &ms
	}
	return w
}
