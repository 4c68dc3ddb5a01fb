package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// taskCall is what a tool task records of the tools/call that created it
// (the task's params in the store): everything a run of the tool needs to
// rebuild its Request, here or, after a lost worker, on another instance.
type taskCall struct {
	// Version is the protocol version the call was made under; it selects
	// the task surface (2025-11-25 or the extension).
	Version string `json:"version"`
	// RequestID is the JSON-RPC id of the tools/call.
	RequestID jsonrpc.ID `json:"requestId"`
	// Params are the tools/call params as received.
	Params jsontext.Value `json:"params"`
	// Capabilities and Client are what the client declared: in initialize
	// (legacy) or in the request's _meta (modern).
	Capabilities mcp.ClientCapabilities `json:"capabilities"`
	Client       mcp.Implementation     `json:"client,omitzero"`
	// Session is the legacy session that made the call, whose connection
	// gets the task's progress and log notifications while it lasts.
	Session string `json:"session,omitempty"`
	// Answers are the client's answers gathered by multi round-trip rounds
	// before the task was created; the tool's questions under these keys
	// are answered from here, on every run.
	Answers map[string]recordedAnswer `json:"answers,omitempty"`
	// Adopt names the promotion whose running execution the task's first
	// run takes over instead of running the tool (see promotion).
	Adopt string `json:"adopt,omitempty"`
	// Meta is what middleware recorded with the task (Request.SetTaskMeta).
	Meta map[string]string `json:"meta,omitempty"`
}

// newTaskCall records r, a tools/call about to become a task.
func newTaskCall(r *Request) *taskCall {
	c := &taskCall{
		Version:      r.version,
		RequestID:    r.id,
		Params:       jsontext.Value(r.params),
		Capabilities: r.caps,
		Client:       r.client,
	}
	if r.session != nil {
		c.Session = r.session.id
	}
	c.Answers = r.roundAnswers()
	c.Meta = r.recordedTaskMeta()
	if len(c.Params) == 0 {
		c.Params = jsontext.Value(`{}`)
	}
	return c
}

// startTask creates the task for the recorded call of tool t, durably,
// visible to every instance sharing the store before it returns. ttl is
// the retention the client asked for (zero: the runtime's default);
// follow, if set, hears of the task's changes (tasks.StartRequest.Follow);
// p are the call's params, decoded, for the task's first run here (nil:
// the run decodes the recorded call). An error is the JSON-RPC error to
// answer the call with.
func (s *Server) startTask(ctx context.Context, r *Request, t *serverTool, call *taskCall, ttl time.Duration,
	follow func(tasks.Task, bool), p *mcp.CallToolParams) (tasks.Task, error) {
	peer, err := r.recordedPeer()
	if err != nil {
		return tasks.Task{}, fmt.Errorf("server: recording the client of tool %q's task: %w", t.tool.Name, err)
	}
	raw, err := call.encode(peer)
	if err != nil {
		return tasks.Task{}, fmt.Errorf("server: recording the call of tool %q for its task: %w", t.tool.Name, err)
	}
	task, err := s.tasks.rt.Start(ctx, tasks.StartRequest{
		Principal: r.principal, Method: mcp.MethodToolsCall, Name: t.tool.Name, TTL: ttl, Follow: follow,
		Params: raw, ParamsHandedOver: true, // encode's own bytes, of the decoder's valid params
		Local: decodedCall{call: call, params: p},
		// The first run goes on this request's goroutine once it is answered,
		// where the runtime allows it: no hand-off to another goroutine
		// (TestTaskRunsOnTheGoroutineThatAnsweredItsCreation).
		Launch: func(run func()) bool { return jsonrpc.AfterResponse(ctx, run) },
	})
	if err != nil {
		return tasks.Task{}, taskError(err, "")
	}
	r.createdTask(task.ID)
	return task, nil
}

// runToolTask is the task handler of every task-supporting tool: it runs
// the tool from the task's recorded call, or, for a promoted call on its
// first run, takes over the execution already running on this instance.
func (s *Server) runToolTask(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
	decoded, _ := x.Local().(decodedCall)
	call := decoded.call
	if call == nil {
		call = new(taskCall)
		if err := json.Unmarshal(x.Params(), call); err != nil {
			return tasks.Result{}, fmt.Errorf("the task's recorded call cannot be read: %w", err)
		}
	}
	if call.Adopt != "" {
		if pr := s.tasks.takePromotion(call.Adopt); pr != nil {
			return pr.adopt(ctx, x)
		}
		if x.Run() == 1 {
			// The execution to take over ended before the task could run
			// (the task was cancelled meanwhile): running the tool afresh
			// would do its work a second time.
			return tasks.Result{}, fmt.Errorf("the execution of tool %q ended before its task took it over", x.Name())
		}
	}
	t, ok := s.tools.get(x.Name())
	if !ok || t.taskSupport() == mcp.TaskSupportForbidden {
		return tasks.Result{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
			"tool %q is no longer offered as a task by this server; it was removed or re-registered since the task was created", x.Name())
	}
	p := decoded.params
	if p == nil {
		p = new(mcp.CallToolParams)
		if err := json.Unmarshal(call.Params, p); err != nil {
			return tasks.Result{}, fmt.Errorf("the task's recorded tools/call params cannot be read: %w", err)
		}
	}
	// The arguments are checked against the tool as registered now: a
	// legacy task's were not checked before it was created (invalid ones
	// are its outcome, a tool error), and a re-run after a lost instance
	// may meet a tool registered anew.
	if err := t.input.validate(p.Arguments); err != nil {
		res, err := rejectArguments(call.Version, t.tool.Name, err)
		return toolOutcome(res, err, mcp.IsModern(call.Version))
	}
	r := s.taskRequest(ctx, x, call, p)
	defer s.tasks.track(x.TaskID(), r)()
	res, err := s.invokeTool(ctx, r, t, p.Arguments)
	r.endTask()
	return toolOutcome(res, err, r.modern)
}

// taskRequest rebuilds the Request of a recorded call for a run of its
// task: the same version, capabilities, client, principal and params, with
// questions going through the task and progress becoming its
// statusMessage (and, for a legacy session on this instance, progress and
// log notifications to it, tagged with the task).
func (s *Server) taskRequest(ctx context.Context, x *tasks.Exec, call *taskCall, p *mcp.CallToolParams) *Request {
	meta := p.Meta
	r := &Request{
		srv:       s,
		id:        call.RequestID,
		method:    mcp.MethodToolsCall,
		params:    stdjson.RawMessage(call.Params),
		meta:      meta,
		version:   call.Version,
		modern:    mcp.IsModern(call.Version),
		caps:      call.Capabilities,
		client:    call.Client,
		principal: x.Principal(),
		send:      dropNotification,
		decoded:   p,
	}
	r.asker = &taskAsker{x: x, answers: call.Answers}
	r.related = &relatedTask{id: x.TaskID(), meta: call.Meta}
	r.task, r.taskCtx = x, ctx
	if !r.modern {
		if meta.Has(mcp.MetaProgressToken) { // asking when it is absent makes an error to discard
			if tok, err := meta.ProgressToken(); err == nil && tok.IsValid() {
				r.progress = tok
			}
		}
		if ss := s.hub.session(call.Session); ss != nil {
			r.session, r.send = ss, ss.send
		}
	}
	return r
}

// dropNotification is the send of a Request whose client cannot be
// reached: a modern task, or a legacy one whose session is gone.
func dropNotification(context.Context, *jsonrpc.Request) error { return nil }

// decodedCall is what the tools/call that creates a task already holds of
// its recorded call, handed to the task's first run on this instance
// (tasks.StartRequest.Local) so that it does not decode the call again: 6
// allocations of a legacy task's life, 21 of an extension task's
// (BenchmarkTaskLifeCost). The params share the request's bytes, which
// jsonrpc never rewrites (DecodeMessage).
type decodedCall struct {
	call   *taskCall
	params *mcp.CallToolParams // nil: decode call.Params
}

// toolOutcome turns the outcome of a tool run into the task's outcome: a
// result (isError included) completes it, a *jsonrpc.Error fails it with
// exactly that error, and any other error fails it with -32603. A modern
// task's result is the tools/call result it stands for, so it carries
// resultType "complete" as every modern result does.
func toolOutcome(res *mcp.CallToolResult, err error, modern bool) (tasks.Result, error) {
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return tasks.Result{}, je
		}
		if errors.Is(err, ErrInputRequired) {
			return tasks.Result{}, jsonrpc.NewError(jsonrpc.CodeInternalError,
				"the tool returned ErrInputRequired inside a task, where questions are answered through the task; return the error of the question instead")
		}
		return tasks.Result{}, err
	}
	if modern && res.ResultType == "" {
		res.ResultType = mcp.ResultComplete
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return tasks.Result{}, fmt.Errorf("the tool's result cannot be encoded: %w", err)
	}
	return tasks.Result{Value: raw, IsError: res.IsError}, nil
}
