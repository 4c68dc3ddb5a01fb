package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// A promotion runs a tool inline on a modern request that may (or must)
// become a task, for up to the tool's PromoteAfter. The handler runs on its
// own goroutine, with the request's multi round-trip round answering its
// questions. Then:
//
//   - if it returns first, an optional tool answers with its result (or
//     InputRequiredResult, when it asked something this round could not
//     answer); a required tool gets a task created already holding the
//     outcome;
//   - if the deadline comes first, a task is created whose first run takes
//     over the running execution instead of running the tool again: the
//     task's recorded call carries the promotion's token, and the task
//     handler on this instance finds the promotion by it (adopt). From then
//     on the handler's questions go to the task and its progress becomes
//     the task's statusMessage; the task's cancellation ends its context.
//
// A question asked before the deadline ends the round and rules promotion
// out, so a call never both asks inline and becomes a task: multi
// round-trip input resolves synchronously before the task is created.
type promotion struct {
	srv   *Server
	r     *Request
	token string
	round asker           // the request's multi round-trip round
	ctx   context.Context // the handler's
	done  chan struct{}
	res   *mcp.CallToolResult // the handler's outcome, once done is closed
	err   error

	cancel   context.CancelCauseFunc // ends the handler's context
	unlinkRq func() bool             // stops the request's end from cancelling the handler

	mu       sync.Mutex
	state    promotionState
	handover chan struct{} // closed when promoting ends: adopted, abandoned or orphaned
	asker    *taskAsker    // once adopted
}

// promotionState is where a promotion is.
type promotionState int

const (
	promoInline    promotionState = iota // running inline
	promoAsked                           // asked the client this round: stays inline
	promoPromoting                       // a task is being created for it
	promoAdopted                         // its task's run has taken it over
	promoOrphaned                        // its task ended before taking it over
)

// errOrphaned ends the handler of a promotion whose task ended before it
// could take the execution over, other than by being cancelled or expiring
// (which end it with tasks.ErrCancelled or tasks.ErrExpired, as a run's
// would); its questions fail with it once it is orphaned.
var errOrphaned = errors.New("server: the task created for this call ended before it took the running call over")

// promote answers a tools/call by promotion (see promotion).
func (s *Server) promote(ctx context.Context, r *Request, t *serverTool, p *mcp.CallToolParams) (result, error) {
	must := t.taskSupport() == mcp.TaskSupportRequired
	pr := s.newPromotion(ctx, r)
	go pr.run(t, p)
	deadline, stop := s.timer(t.task.PromoteAfter)
	defer stop()
	select {
	case <-pr.done:
		if !must || pr.askedInline() {
			return pr.inline()
		}
		return s.adoptIntoTask(ctx, r, t, pr, must)
	case <-deadline:
		if !pr.beginPromoting() {
			return pr.wait(ctx)
		}
		return s.adoptIntoTask(ctx, r, t, pr, must)
	case <-ctx.Done():
		return pr.wait(ctx) // the request's end cancels the handler
	}
}

// newPromotion sets up r to run inline under a promotion: the handler's
// context carries r's values and ends with r's context until promoting
// begins, and r's questions go through the promotion.
func (s *Server) newPromotion(ctx context.Context, r *Request) *promotion {
	hctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	pr := &promotion{
		srv:      s,
		r:        r,
		token:    rand.Text(),
		round:    r.asker,
		done:     make(chan struct{}),
		cancel:   cancel,
		handover: make(chan struct{}),
	}
	pr.unlinkRq = context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	r.asker = pr
	r.mayPromote = true
	pr.ctx = hctx
	return pr
}

// run runs the tool's handler on the promotion's goroutine.
func (pr *promotion) run(t *serverTool, p *mcp.CallToolParams) {
	defer close(pr.done)
	defer func() {
		if v := recover(); v != nil {
			pr.srv.logger.Error("server: tool handler panicked", "tool", t.tool.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			pr.res, pr.err = nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "internal error: the handler of tool %q panicked", t.tool.Name)
		}
	}()
	pr.res, pr.err = pr.srv.invokeTool(pr.ctx, pr.r, t, p.Arguments)
}

// inline returns the handler's outcome as the answer to the request.
func (pr *promotion) inline() (result, error) {
	pr.unlinkRq()
	pr.cancel(nil)
	if pr.err != nil {
		return nil, pr.err
	}
	return pr.res, nil
}

// wait waits for the handler to return and answers with its outcome; if
// ctx ends first, the handler is cancelled and its return awaited, so
// nothing of the request outlives it.
func (pr *promotion) wait(ctx context.Context) (result, error) {
	select {
	case <-pr.done:
		return pr.inline()
	case <-ctx.Done():
		pr.cancel(context.Cause(ctx))
		<-pr.done
		return nil, context.Cause(ctx)
	}
}

// askedInline reports whether the handler asked a question this round.
func (pr *promotion) askedInline() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.state == promoAsked
}

// beginPromoting moves a running promotion to promoting, so its questions
// wait for the task, and detaches the handler from the request's end. It
// reports false when the handler already asked this round or the request
// has already ended.
func (pr *promotion) beginPromoting() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.state != promoInline || !pr.unlinkRq() {
		return false
	}
	pr.state = promoPromoting
	pr.r.beginPromoting()
	return true
}

// abandon returns a promotion whose task could not be created to running
// inline.
func (pr *promotion) abandon() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.state = promoInline
	pr.r.abandonPromoting()
	close(pr.handover)
	pr.handover = make(chan struct{})
}

// adoptIntoTask creates the task whose first run takes over the promoted
// execution, and answers with the CreateTaskResult. If the task cannot be
// created, an optional tool goes on inline and answers with its result; a
// required one answers with the error.
func (s *Server) adoptIntoTask(ctx context.Context, r *Request, t *serverTool, pr *promotion, must bool) (result, error) {
	pr.mu.Lock()
	if pr.state == promoInline {
		pr.state = promoPromoting // finished inline: the task takes over the outcome
		pr.r.beginPromoting()
	}
	pr.mu.Unlock()
	call := newTaskCall(r)
	call.Adopt = pr.token
	s.tasks.putPromotion(pr)
	task, err := s.startTask(ctx, r, t, call, 0, nil, nil)
	if err != nil {
		s.tasks.takePromotion(pr.token)
		if must {
			pr.cancel(err)
			<-pr.done
			return nil, err
		}
		pr.abandon()
		return pr.wait(ctx)
	}
	go pr.supervise(r.principal, task.ID)
	return createdTask(task), nil
}

// supervise waits for the task's first run to take the execution over; if
// the task ends before it does (cancelled or expired before the executor
// ran it), the execution is orphaned: its context ends with the task's
// cause, as if the run had held it (tasks.ErrCancelled or
// tasks.ErrExpired), and its questions fail.
func (pr *promotion) supervise(principal, id string) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	pr.mu.Lock()
	handover := pr.handover
	pr.mu.Unlock()
	go func() {
		select {
		case <-handover:
			stop()
		case <-ctx.Done():
		}
	}()
	var last tasks.Task
	var watchErr error
	for t, err := range pr.srv.tasks.rt.Watch(ctx, principal, id) {
		if err != nil {
			watchErr = err
			break
		}
		last = t
		if t.Terminal() {
			break
		}
	}
	if pr.srv.tasks.takePromotion(pr.token) == nil {
		return // taken over
	}
	pr.mu.Lock()
	if pr.state == promoPromoting {
		pr.state = promoOrphaned
		close(pr.handover)
	}
	pr.mu.Unlock()
	pr.cancel(orphanCause(last, watchErr))
}

// orphanCause is why a promoted execution ends when its task ended before
// taking it over, given the task as last seen and the error that ended the
// watch: the cause its task's run would have seen — tasks.ErrExpired when
// the task outlived its time to live (only expiry makes a task vanish; an
// expired task is cancelled at or after CreatedAt+TTL by the runtime's own
// clock), tasks.ErrCancelled when it was cancelled — the runtime's closing,
// or else errOrphaned.
func orphanCause(last tasks.Task, watchErr error) error {
	switch {
	case errors.Is(watchErr, tasks.ErrNotFound):
		return tasks.ErrExpired
	case errors.Is(watchErr, tasks.ErrClosed):
		return tasks.ErrClosed
	case last.Status != tasks.StatusCancelled:
		return errOrphaned
	case last.TTL > 0 && !last.UpdatedAt.Before(last.CreatedAt.Add(last.TTL)):
		return tasks.ErrExpired
	}
	return tasks.ErrCancelled
}

// putPromotion registers a promotion for its task to find.
func (h *taskHost) putPromotion(pr *promotion) {
	h.mu.Lock()
	h.promotions[pr.token] = pr
	h.mu.Unlock()
}

// takePromotion removes and returns the promotion with the token, or nil.
func (h *taskHost) takePromotion(token string) *promotion {
	h.mu.Lock()
	defer h.mu.Unlock()
	pr := h.promotions[token]
	delete(h.promotions, token)
	return pr
}

// adopt is the first run of the promoted call's task: it takes the
// execution over and returns its outcome as the task's.
func (pr *promotion) adopt(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
	pr.mu.Lock()
	pr.asker = &taskAsker{x: x, answers: pr.r.roundAnswers()}
	pr.state = promoAdopted
	close(pr.handover)
	pr.mu.Unlock()
	pr.r.attachTask(ctx, x)
	defer pr.srv.tasks.track(x.TaskID(), pr.r)()
	stop := context.AfterFunc(ctx, func() { pr.cancel(context.Cause(ctx)) })
	defer stop()
	<-pr.done
	pr.r.endTask()
	return toolOutcome(pr.res, pr.err, pr.r.modern)
}

// ask routes the handler's questions: to the request's round while
// inline (a question it cannot answer yet ends the round, and rules out
// promotion), to the task once adopted, and while promoting they wait for
// one or the other.
func (pr *promotion) ask(ctx context.Context, r *Request, qs []*question) error {
	for {
		pr.mu.Lock()
		switch pr.state {
		case promoInline, promoAsked:
			err := pr.round.ask(ctx, r, qs)
			if errors.Is(err, ErrInputRequired) {
				pr.state = promoAsked
			}
			pr.mu.Unlock()
			return err
		case promoAdopted:
			a := pr.asker
			pr.mu.Unlock()
			return a.ask(ctx, r, qs)
		case promoOrphaned:
			pr.mu.Unlock()
			return errOrphaned
		}
		handover := pr.handover
		pr.mu.Unlock()
		select {
		case <-handover:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
