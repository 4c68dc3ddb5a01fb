package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/millis"
	"github.com/weftmcp/weft/mcp"
)

// defaultClientPoll is how long ClientTask.Wait waits between polls when
// the client suggests no pollInterval.
const defaultClientPoll = time.Second

// ClientTask is a request the client of a 2025-11-25 session runs as a
// task on the server's behalf (client-hosted tasks): a task-augmented
// elicitation/create or sampling/createMessage, made with
// Session.ElicitAsTask or Session.SampleAsTask. The server is the requestor:
// it polls the client's tasks/get, fetches the outcome with tasks/result
// (an R), and may cancel it when the client declared tasks.cancel.
//
// Every call takes a context: called with the context of a request handler,
// the request goes on that request's stream over Streamable HTTP;
// otherwise on the session's own stream.
type ClientTask[R any] struct {
	ss      *Session
	created mcp.Task
}

// ElicitAsTask sends a task-augmented elicitation/create to the client,
// which answers at once with a task that it runs while the user responds.
// ttl is the retention asked for (zero: the client's default). The client
// must have declared elicitation and tasks.requests.elicitation.create in
// initialize; otherwise use Request.Elicit.
func (ss *Session) ElicitAsTask(ctx context.Context, p *mcp.ElicitParams, ttl time.Duration) (*ClientTask[mcp.ElicitResult], error) {
	q := *p
	q.Task = taskMetadata(ttl)
	return startClientTask[mcp.ElicitResult](ctx, ss, mcp.MethodElicitationCreate, &q, p)
}

// SampleAsTask sends a task-augmented sampling/createMessage to the client.
// ttl is as for ElicitAsTask. The client must have declared sampling and
// tasks.requests.sampling.createMessage in initialize; otherwise use
// Request.Sample.
func (ss *Session) SampleAsTask(ctx context.Context, p *mcp.CreateMessageParams, ttl time.Duration) (*ClientTask[mcp.CreateMessageResult], error) {
	q := *p
	q.Task = taskMetadata(ttl)
	return startClientTask[mcp.CreateMessageResult](ctx, ss, mcp.MethodSamplingCreateMessage, &q, p)
}

// taskMetadata is the task param asking for ttl (none for zero).
func taskMetadata(ttl time.Duration) *mcp.TaskMetadata {
	m := &mcp.TaskMetadata{}
	if ttl > 0 {
		ms := ttl.Milliseconds()
		m.TTL = &ms
	}
	return m
}

// startClientTask checks that the client hosts tasks for method, sends the
// augmented request and returns the handle of the task it created.
func startClientTask[R any](ctx context.Context, ss *Session, method string, params, plain any) (*ClientTask[R], error) {
	version, caps := ss.ProtocolVersion(), ss.ClientCapabilities()
	if !mcp.SupportsTasksV1(version) {
		return nil, fmt.Errorf("server: client-hosted tasks exist only in protocol version %s; the session negotiated %q", mcp.Version20251125, version)
	}
	in, err := mcp.NewInputRequest(method, plain)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	required, err := in.RequiredCapabilities()
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if !caps.Covers(required) {
		return nil, fmt.Errorf("server: %s needs the client capability %s, which the client did not declare in initialize", method, capabilityText(required))
	}
	if !clientHostsTasks(caps, method) {
		return nil, fmt.Errorf("server: the client did not declare tasks.requests for %s in initialize, so it cannot run it as a task; send it without a task instead", method)
	}
	var raw jsontext.Value
	if err := ss.conn.Call(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	if kind, err := mcp.ResultTypeOf(raw); err != nil || kind != mcp.ResultTask {
		return nil, fmt.Errorf("server: the client answered the task-augmented %s with a plain result instead of a CreateTaskResult", method)
	}
	var created mcp.CreateTaskResult
	if err := json.Unmarshal(raw, &created); err != nil {
		return nil, fmt.Errorf("server: the client's CreateTaskResult for %s is malformed: %w", method, err)
	}
	if created.Task.TaskID == "" {
		return nil, fmt.Errorf("server: the client's CreateTaskResult for %s has no taskId", method)
	}
	return &ClientTask[R]{ss: ss, created: created.Task}, nil
}

// clientHostsTasks reports whether a 2025-11-25 client declared that it runs
// method as a task.
func clientHostsTasks(c mcp.ClientCapabilities, method string) bool {
	if c.Tasks == nil || c.Tasks.Requests == nil {
		return false
	}
	r := c.Tasks.Requests
	switch method {
	case mcp.MethodElicitationCreate:
		return r.Elicitation != nil && r.Elicitation.Create != nil
	case mcp.MethodSamplingCreateMessage:
		return r.Sampling != nil && r.Sampling.CreateMessage != nil
	}
	return false
}

// ID returns the task's ID, chosen by the client.
func (ct *ClientTask[R]) ID() string { return ct.created.TaskID }

// Created returns the task as the client created it.
func (ct *ClientTask[R]) Created() mcp.Task { return ct.created }

// Get asks the client for the task's current state (tasks/get).
func (ct *ClientTask[R]) Get(ctx context.Context) (mcp.Task, error) {
	var res mcp.GetTaskResult
	if err := ct.ss.conn.Call(ctx, mcp.MethodTasksGet, &mcp.GetTaskParams{TaskID: ct.ID()}, &res); err != nil {
		return mcp.Task{}, err
	}
	return res.Task, nil
}

// Wait polls the client's tasks/get until the task has finished, and
// returns its final state. It polls at the task's pollInterval (a second
// when the client suggests none), and at once when the client sends
// notifications/tasks/status for the task.
func (ct *ClientTask[R]) Wait(ctx context.Context) (mcp.Task, error) {
	changed := ct.ss.watchClientTask(ct.ID())
	defer ct.ss.unwatchClientTask(ct.ID(), changed)
	for {
		t, err := ct.Get(ctx)
		if err != nil {
			return mcp.Task{}, err
		}
		if t.Status.IsTerminal() {
			return t, nil
		}
		poll := defaultClientPoll
		if t.PollInterval != nil && *t.PollInterval > 0 {
			poll = millis.Duration(*t.PollInterval)
		}
		timer := time.NewTimer(poll)
		select {
		case <-timer.C:
		case <-changed:
			timer.Stop()
		case <-ctx.Done():
			timer.Stop()
			return mcp.Task{}, context.Cause(ctx)
		}
	}
}

// Result fetches the task's outcome (tasks/result), blocking until the task
// has finished: the client's result, or the JSON-RPC error the request
// failed with (a *jsonrpc.Error).
func (ct *ClientTask[R]) Result(ctx context.Context) (*R, error) {
	var res R
	if err := ct.ss.conn.Call(ctx, mcp.MethodTasksResult, &mcp.GetTaskPayloadParams{TaskID: ct.ID()}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Cancel asks the client to cancel the task (tasks/cancel) and returns its
// state; the client must have declared tasks.cancel.
func (ct *ClientTask[R]) Cancel(ctx context.Context) (mcp.Task, error) {
	if c := ct.ss.ClientCapabilities().Tasks; c == nil || c.Cancel == nil {
		return mcp.Task{}, errors.New("server: the client did not declare tasks.cancel, so its tasks cannot be cancelled")
	}
	var res mcp.CancelTaskResult
	if err := ct.ss.conn.Call(ctx, mcp.MethodTasksCancel, &mcp.CancelTaskParams{TaskID: ct.ID()}, &res); err != nil {
		return mcp.Task{}, err
	}
	return res.Task, nil
}

// ListClientTasks returns one page of the tasks the client runs for this
// session (tasks/list) and the cursor of the next ("" when none); the
// client must have declared tasks.list.
func (ss *Session) ListClientTasks(ctx context.Context, cursor string) ([]mcp.Task, string, error) {
	if c := ss.ClientCapabilities().Tasks; c == nil || c.List == nil {
		return nil, "", errors.New("server: the client did not declare tasks.list, so its tasks cannot be listed")
	}
	var res mcp.ListTasksResult
	if err := ss.conn.Call(ctx, mcp.MethodTasksList, &mcp.ListTasksParams{Cursor: cursor}, &res); err != nil {
		return nil, "", err
	}
	return res.Tasks, res.NextCursor, nil
}

// watchClientTask returns a channel that receives a token whenever the
// client sends notifications/tasks/status for the task, until
// unwatchClientTask.
func (ss *Session) watchClientTask(id string) chan struct{} {
	ch := make(chan struct{}, 1)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	u := ss.useLocked()
	if u.clientTasks == nil {
		u.clientTasks = make(map[string][]chan struct{})
	}
	u.clientTasks[id] = append(u.clientTasks[id], ch)
	return ch
}

// unwatchClientTask stops the channel from watchClientTask.
func (ss *Session) unwatchClientTask(id string, ch chan struct{}) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	waiters := ss.used.clientTasks // made by watchClientTask
	chs := waiters[id]
	for i, c := range chs {
		if c == ch {
			chs = append(chs[:i], chs[i+1:]...)
			break
		}
	}
	if len(chs) == 0 {
		delete(waiters, id)
	} else {
		waiters[id] = chs
	}
}

// clientTaskChanged wakes the waiters of a client task the client reported
// a change of.
func (ss *Session) clientTaskChanged(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.used == nil {
		return
	}
	for _, ch := range ss.used.clientTasks[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
