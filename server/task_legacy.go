package server

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/millis"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// This file is the 2025-11-25 task surface of legacy sessions: the client
// asks for a task with the task param of tools/call, polls tasks/get,
// blocks on tasks/result (which also carries the task's questions to it),
// lists with tasks/list and cancels with tasks/cancel; the server sends
// notifications/tasks/status to the session on every change.

// startLegacyTask creates the task a 2025-11-25 client asked for and
// answers at once with the nested CreateTaskResult.
func (s *Server) startLegacyTask(ctx context.Context, r *Request, t *serverTool, p *mcp.CallToolParams) (result, error) {
	var ttl time.Duration
	if p.Task.TTL != nil {
		if *p.Task.TTL < 0 {
			return nil, invalidParams("task.ttl is %d; it must be a non-negative number of milliseconds", *p.Task.TTL)
		}
		ttl = millis.Duration(*p.Task.TTL)
	}
	task, err := s.startTask(ctx, r, t, newTaskCall(r), ttl, s.taskStatusFollower(r.session, r.principal), p)
	if err != nil {
		return nil, err
	}
	res := &mcp.CreateTaskResult{Task: legacyTask(task)}
	if text := t.task.ImmediateResponse; text != "" {
		if err := res.Meta.Set(mcp.MetaModelImmediateResponse, text); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// watchTaskStatus sends notifications/tasks/status (the full task, without
// related-task _meta, which the spec says it should not carry) to the
// session that created the task, each time its status or status message
// changes from last, until it finishes or the session ends. It follows
// the task with a goroutine and Runtime.Watch: what the session's task
// status follower falls back on once this instance no longer runs the task.
func (s *Server) watchTaskStatus(ss *Session, principal string, last tasks.Task) {
	go func() {
		ctx := ss.lifetime()
		for t, err := range s.tasks.rt.Watch(ctx, principal, last.ID) {
			if err != nil {
				return
			}
			if t.Status == last.Status && t.StatusMessage == last.StatusMessage {
				continue
			}
			last = t
			ss.sendTaskStatus(ctx, t)
		}
	}()
}

// pushInputs follows a legacy task whose client polled it while it was
// input_required, and delivers the task's questions to the session as they
// come (see deliverInputs), as ordinary server-to-client requests tagged
// with the task, until the task finishes or the session ends. The spec asks
// such a client to call tasks/result, which carries the questions; one that
// waits for them on the session instead (as the official Tasks requester
// does; the spec tells clients to expect task messages on any stream) gets
// them too. Waiting for the poll means the client knows the task by the
// time its questions arrive. One follower runs per task.
func (s *Server) pushInputs(ss *Session, principal, taskID string) {
	if ss == nil || !s.tasks.startPushing(taskID) {
		return
	}
	go func() {
		defer s.tasks.stopPushing(taskID)
		ctx := ss.lifetime()
		dctx, stop := context.WithCancel(ctx)
		defer stop() // a finished task's questions need no answer
		for t, err := range s.tasks.rt.Watch(ctx, principal, taskID) {
			if err != nil {
				return
			}
			if t.Status == tasks.StatusInputRequired {
				s.deliverInputs(dctx, ss, principal, t)
			}
			if t.Terminal() {
				return
			}
		}
	}()
}

// legacyGetTask answers a 2025-11-25 tasks/get: the task, flat.
func (s *Server) legacyGetTask(ctx context.Context, r *Request, id string) (result, error) {
	t, err := s.tasks.rt.Poll(ctx, r.principal, id)
	if err != nil {
		return nil, taskError(err, id)
	}
	r.aboutTask(t.ID, t.Params)
	if t.Status == tasks.StatusInputRequired {
		s.pushInputs(r.session, r.principal, id)
	}
	return &mcp.GetTaskResult{Task: legacyTask(t)}, nil
}

// legacyCancelTask answers a 2025-11-25 tasks/cancel: the task is cancelled
// before the answer, which is the task, flat; a finished task is -32602.
// The task's progress and log notifications end before the answer.
func (s *Server) legacyCancelTask(ctx context.Context, r *Request, id string) (result, error) {
	t, err := s.tasks.rt.Cancel(ctx, r.principal, id)
	var term *tasks.TerminalError
	if errors.As(err, &term) {
		status := mcp.TaskStatus(term.Status)
		if done, err := s.tasks.rt.Get(ctx, r.principal, id); err == nil {
			status = legacyTask(done).Status
		}
		return nil, invalidParams("Cannot cancel task: already in terminal status '%s'", status)
	}
	if err != nil {
		return nil, taskError(err, id)
	}
	r.aboutTask(t.ID, t.Params)
	s.tasks.stopNotifying(id)
	return &mcp.CancelTaskResult{Task: legacyTask(t)}, nil
}

// taskResult answers tasks/result (2025-11-25 only): it blocks until the
// task has finished and answers exactly what the tools/call would have
// (its result with _meta[io.modelcontextprotocol/related-task], or its
// JSON-RPC error). Meanwhile it delivers the task's outstanding questions
// to the client as server-to-client requests tagged with the task, sent
// with this request's context so that Streamable HTTP carries them on this
// request's stream, and records the answers in the task.
func (s *Server) taskResult(ctx context.Context, r *Request, p *mcp.GetTaskPayloadParams) (result, error) {
	if p.TaskID == "" {
		return nil, needTaskID(r.method)
	}
	var deliveries lazyCancel
	defer deliveries.cancel() // a finished task's questions need no answer
	noted := false
	for t, err := range s.tasks.rt.Watch(ctx, r.principal, p.TaskID) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, taskError(err, p.TaskID)
		}
		if !noted {
			r.aboutTask(t.ID, t.Params)
			noted = true
		}
		if t.Status == tasks.StatusInputRequired {
			s.deliverInputs(deliveries.context(ctx), r.session, r.principal, t)
		}
		if t.Terminal() {
			return legacyPayload(t)
		}
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "watching task %q ended before it finished", p.TaskID)
}

// lazyCancel is a context derived from a parent with a cancel function,
// made on first use: on a handler's context, which is not a plain
// cancelCtx, context.WithCancel costs 17 allocations a task life
// (BenchmarkTaskLifeCost), and most tasks/result calls never need it.
type lazyCancel struct {
	ctx  context.Context
	stop context.CancelFunc
}

// context returns the context, deriving it from parent on the first call.
func (l *lazyCancel) context(parent context.Context) context.Context {
	if l.ctx == nil {
		l.ctx, l.stop = context.WithCancel(parent)
	}
	return l.ctx
}

// cancel ends the context, if it was made.
func (l *lazyCancel) cancel() {
	if l.stop != nil {
		l.stop()
	}
}

// legacyPayload is the tasks/result answer of a finished task.
func legacyPayload(t tasks.Task) (result, error) {
	switch t.Status {
	case tasks.StatusFailed:
		if t.Error != nil {
			return nil, t.Error
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "%s", t.StatusMessage)
	case tasks.StatusCancelled:
		msg := t.StatusMessage
		if msg == "" {
			msg = "it was cancelled"
		}
		return nil, invalidParams("Task %q was cancelled, so it has no result: %s", t.ID, msg)
	}
	raw, err := mcp.AppendRelatedTask(make([]byte, 0, len(t.Result)+len(t.ID)+relatedMetaSize), t.Result, t.ID)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the task's stored result is unusable: %v", err)
	}
	return &rawResult{raw: jsontext.Value(raw)}, nil
}

// relatedMetaSize is room for the _meta a tasks/result answer adds to the
// stored result, besides the task ID.
const relatedMetaSize = len(`,"_meta":{"` + mcp.MetaRelatedTask + `":{"taskId":""}}`)

// deliverInputs sends each outstanding question of the task to the
// session's client, each on its own goroutine, and records the answers. A
// question another delivery on this instance is sending already is left to
// it, and taken over if that delivery ends unanswered (see claimDelivery).
// With the context of a tasks/result request, Streamable HTTP carries the
// questions on that request's stream; otherwise on the session's GET
// stream, and a session with none open fails at once. A client's JSON-RPC
// error is recorded as a refusal (see refusalAnswer).
func (s *Server) deliverInputs(ctx context.Context, ss *Session, principal string, t tasks.Task) {
	for _, in := range t.InputRequests {
		go s.deliverInput(ctx, ss, principal, t.ID, in)
	}
}

// deliverInput delivers one question of the task and records its answer,
// unless another delivery answers it first.
func (s *Server) deliverInput(ctx context.Context, ss *Session, principal, taskID string, in tasks.InputRequest) {
	for {
		mine, other := s.tasks.claimDelivery(taskID, in.Key)
		if other != nil {
			select {
			case <-other.done:
			case <-ctx.Done():
				return
			}
			if other.answered {
				return
			}
			continue
		}
		if !s.stillAsks(ctx, principal, taskID, in.Key) {
			s.tasks.endDelivery(taskID, in.Key, mine, false)
			return
		}
		answer, err := deliver(ctx, ss, taskID, in.Request)
		if err == nil {
			err = s.tasks.rt.Answer(context.WithoutCancel(ctx), principal, taskID, map[string]stdjson.RawMessage{in.Key: stdjson.RawMessage(answer)})
			if err != nil {
				s.logger.Warn("server: could not record the client's answer to a task's input request", "task", taskID, "key", in.Key, "error", err)
			}
			s.tasks.endDelivery(taskID, in.Key, mine, true)
			return
		}
		s.tasks.endDelivery(taskID, in.Key, mine, false)
		if ctx.Err() == nil {
			s.logger.Debug("server: could not deliver a task's input request to the client", "task", taskID, "key", in.Key, "error", err)
		}
		return
	}
}

// stillAsks reports whether the task, as stored now, still waits for the
// answer to key. A follower of the task may deliver from a snapshot older
// than what another has seen: the question answered and its delivery
// ended, or the task finished. Checked once the delivery is claimed, the
// stored task tells truly outstanding questions from such stale ones, so
// the client is never asked again. When the store cannot say, the question
// is delivered: asking twice is better than never.
func (s *Server) stillAsks(ctx context.Context, principal, taskID, key string) bool {
	t, err := s.tasks.rt.Get(ctx, principal, taskID)
	if err != nil {
		return !errors.Is(err, tasks.ErrNotFound) && ctx.Err() == nil
	}
	if t.Status != tasks.StatusInputRequired {
		return false
	}
	return slices.ContainsFunc(t.InputRequests, func(in tasks.InputRequest) bool { return in.Key == key })
}

// deliver sends one input request to the session's client, tagged with the
// task, and returns the answer to record.
func deliver(ctx context.Context, ss *Session, taskID string, raw []byte) (jsontext.Value, error) {
	var in mcp.InputRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("the recorded input request is unusable: %w", err)
	}
	params := in.Params
	if len(params) == 0 {
		params = []byte(`{}`)
	}
	params, err := mcp.WithRelatedTask(params, taskID)
	if err != nil {
		return nil, err
	}
	var answer jsontext.Value
	err = ss.conn.Call(ctx, in.Method, params, &answer)
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return refusalAnswer(je)
	}
	return answer, err
}

// rawResult is a result already encoded, checked and compacted
// (mcp.AppendRelatedTask), sent as it is: a task's stored result on the
// legacy surface (which stamps nothing on results).
type rawResult struct {
	raw  jsontext.Value
	base mcp.Result // unused: legacy results carry no resultType
}

// MarshalJSON returns the encoded result.
func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// ResultBase implements result.
func (r *rawResult) ResultBase() *mcp.Result { return &r.base }
