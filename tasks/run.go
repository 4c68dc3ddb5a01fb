package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/weftmcp/weft/jsonrpc"
)

// run is one execution of a task's handler on this instance: its context,
// its subscription to the task's signals, and its lease.
type run struct {
	rt        *Runtime
	id        string
	fn        HandlerFunc
	exec      Exec // in the run's allocation: one allocation fewer a task life (BenchmarkTaskLifeCost)
	ctx       context.Context
	cancel    context.CancelCauseFunc
	sub       Subscription
	expiresAt time.Time

	mu         sync.Mutex
	launched   bool
	leaseUntil time.Time // when the lease lapses unless renewed
	signalled  bool      // a signal came that no re-read has answered yet
	looking    bool      // a goroutine is re-reading the task

	// follow is StartRequest.Follow; the fields after it are its state.
	follow       func(t Task, stopped bool)
	followMu     sync.Mutex
	followed     uint64 // the version last reported
	lastFollowed Task
	followEnded  bool
}

// newRun registers a run for the record and subscribes it to the task's
// signals, before the task is created or taken over, so no signal is missed.
// The caller then launches or abandons it.
func (r *Runtime) newRun(ctx context.Context, rec *Record, fn HandlerFunc) (*run, error) {
	runCtx, cancel := context.WithCancelCause(context.Background())
	rn := &run{rt: r, id: rec.ID, fn: fn, ctx: runCtx, cancel: cancel, expiresAt: rec.ExpiresAt}
	rn.exec.init(rn, rec)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		cancel(ErrClosed)
		return nil, ErrClosed
	}
	if _, dup := r.runs[rec.ID]; dup {
		r.mu.Unlock()
		cancel(nil)
		return nil, fmt.Errorf("tasks: task %s is already running on this instance", rec.ID)
	}
	r.runs[rec.ID] = rn
	r.runsWG.Add(1)
	r.mu.Unlock()
	sub, _, err := subscribeFunc(ctx, r.bus, rec.ID, rn.signal)
	if err != nil {
		rn.release()
		return nil, fmt.Errorf("tasks: subscribing to the task's signals: %w", err)
	}
	rn.sub = sub
	return rn, nil
}

// abandon undoes newRun for a run that will not start.
func (rn *run) abandon() {
	rn.sub.Close()
	rn.release()
}

// release cancels the run's context and removes it from the runtime.
func (rn *run) release() {
	rn.cancel(nil)
	rn.rt.mu.Lock()
	if rn.rt.runs[rn.id] == rn {
		delete(rn.rt.runs, rn.id)
	}
	rn.rt.mu.Unlock()
	rn.rt.runsWG.Done()
}

// launch hands the run to offer (StartRequest.Launch, when Start allows
// it), if set and it takes it, else to the executor; from now on the
// heartbeat renews its lease, which lapses at leaseUntil.
func (rn *run) launch(leaseUntil time.Time, offer func(run func()) bool) {
	rn.mu.Lock()
	rn.launched, rn.leaseUntil = true, leaseUntil
	look := rn.startLooking()
	rn.mu.Unlock()
	if look {
		go rn.look()
	}
	if offer != nil && offer(rn.execute) {
		return
	}
	rn.rt.cfg.executor.Go(rn.execute)
}

// localRun returns this instance's run of the task, if any.
func (r *Runtime) localRun(id string) *run {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs[id]
}

// stop cancels the handler's context with the cause; the first cause wins.
func (rn *run) stop(cause error) { rn.cancel(cause) }

// signal reacts to a signal of the task: the task is re-read, on a
// goroutine that lives only while there is re-reading to do. A run waiting
// for nothing holds no goroutine: with a goroutine listening to every
// running task, a task's life cost 2 allocations and a goroutine start more
// (BenchTaskLife).
func (rn *run) signal(s Signal) {
	if rn.ctx.Err() != nil || s.Kind == SignalCreated {
		return
	}
	rn.mu.Lock()
	rn.signalled = true
	look := rn.startLooking()
	rn.mu.Unlock()
	if look {
		go rn.look()
	}
}

// startLooking reports whether a re-read is due and no goroutine does it,
// claiming it for the caller. rn.mu is held.
func (rn *run) startLooking() bool {
	if !rn.signalled || rn.looking || !rn.launched {
		return false
	}
	rn.looking = true
	return true
}

// look re-reads the task and reacts to what it finds, once per burst of
// signals, until no signal is left unanswered or the run ends.
func (rn *run) look() {
	for {
		rn.mu.Lock()
		if !rn.signalled || rn.ctx.Err() != nil {
			rn.looking = false
			rn.mu.Unlock()
			return
		}
		rn.signalled = false
		rn.mu.Unlock()
		rec, err := rn.rt.cache.peek(rn.ctx, rn.id, true)
		rn.observe(rec, err)
	}
}

// changed reports the task's new state to the run's follower, once per
// version and in order, until a finished state has been reported.
func (rn *run) changed(rec *Record) {
	if rn.follow == nil {
		return
	}
	rn.followMu.Lock()
	defer rn.followMu.Unlock()
	if rn.followEnded || rec.Version <= rn.followed {
		return
	}
	t := rn.rt.view(rec)
	rn.followed, rn.lastFollowed = rec.Version, t
	rn.followEnded = t.Terminal()
	rn.follow(t, false)
}

// endFollow tells the run's follower, once the run has ended without
// reporting a finished state, that this instance reports nothing more.
func (rn *run) endFollow() {
	if rn.follow == nil {
		return
	}
	rn.followMu.Lock()
	defer rn.followMu.Unlock()
	if rn.followEnded {
		return
	}
	rn.followEnded = true
	rn.follow(rn.lastFollowed, true)
}

// observe reacts to a fresh read of the task: it stops the handler when the
// task was cancelled, expired, deleted, taken over or ended by another
// instance, and otherwise hands any new answers to waiting Ask calls.
func (rn *run) observe(rec *Record, err error) {
	if err == nil {
		rn.changed(rec)
	}
	expired := !rn.expiresAt.IsZero() && !rn.rt.now().Before(rn.expiresAt)
	switch {
	case expired && (errors.Is(err, ErrNotFound) || (err == nil && rec.Status.Terminal())):
		rn.stop(ErrExpired)
	case errors.Is(err, ErrNotFound) || (err == nil && rec.Status == StatusCancelled):
		rn.stop(ErrCancelled)
	case err == nil && rec.Status.Terminal():
		// Only the owner completes a task, so another instance failed it:
		// this instance's lease had lapsed.
		rn.lose(rec, "another instance ended the task after its lease lapsed")
	case err != nil:
		// A transient store error: the next signal or heartbeat tries again.
	case rec.Owner != rn.rt.cfg.instanceID:
		rn.lose(rec, fmt.Sprintf("instance %s took the task over", rec.Owner))
	default:
		rn.exec.deliver(rec)
	}
}

// lose stops the run because this instance no longer holds the task's lease.
func (rn *run) lose(rec *Record, why string) {
	if rn.ctx.Err() != nil {
		return
	}
	rn.rt.cfg.observer.LeaseLost()
	rn.rt.audit(rn.ctx, "lease lost", rec, slog.String("reason", why))
	rn.stop(ErrLeaseLost)
}

// execute runs the handler and records its outcome.
func (rn *run) execute() {
	defer func() {
		rn.sub.Close()
		rn.endFollow()
		rn.release()
	}()
	if rn.ctx.Err() != nil {
		return // stopped while waiting for the executor
	}
	res, err := rn.call()
	rn.exec.progress.stop()
	// Ending the context stops the heartbeat and the signal listener from
	// reacting to the terminal state about to be written. Whichever cause
	// came first wins.
	rn.stop(errReturned)
	if cause := context.Cause(rn.ctx); cause != errReturned {
		// Cancelled, expired, taken over or shut down: the store already says
		// what became of the task, and a late result must not change it.
		rn.rt.log.Debug("tasks: handler returned after its task was stopped; outcome discarded",
			slog.String("task_id", rn.id), slog.Any("cause", cause))
		return
	}
	rn.settle(res, err)
}

// errReturned is the cause of a run's context once its handler returned.
var errReturned = errors.New("tasks: the handler returned")

// call runs the handler, turning a panic into an error.
func (rn *run) call() (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			rn.rt.log.Error("tasks: task handler panicked", slog.String("task_id", rn.id),
				slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			err = fmt.Errorf("the task handler panicked: %v", p)
		}
	}()
	return rn.fn(rn.ctx, &rn.exec)
}

// settle records the handler's outcome as the task's terminal state, unless
// the task finished otherwise meanwhile (then the outcome is discarded).
func (rn *run) settle(res Result, err error) {
	rt := rn.rt
	// The write is bounded by the lease, but on a store that shares its
	// records (memory) nothing can hang, and the deadline's context and
	// timer were 3 allocations of a task life (BenchmarkTaskLifeCost).
	ctx := context.Background()
	if rt.cache.shared == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, rt.cfg.lease)
		defer cancel()
	}
	var was previous
	rec, werr := rt.mutate(ctx, rn.id, SignalStatus, func(rec *Record) error {
		if rec.Status.Terminal() {
			return &TerminalError{TaskID: rec.ID, Status: rec.Status}
		}
		if rec.Owner != rt.cfg.instanceID {
			return ErrLeaseLost
		}
		was = previousOf(rec)
		applyOutcome(rec, res, err)
		rec.UpdatedAt = rt.now()
		return nil
	})
	var term *TerminalError
	switch {
	case errors.As(werr, &term):
		rt.log.Info("tasks: handler result discarded because the task had already finished",
			slog.String("task_id", rn.id), slog.String("status", string(term.Status)))
	case errors.Is(werr, ErrLeaseLost):
		rt.log.Info("tasks: handler result discarded because another instance took the task over",
			slog.String("task_id", rn.id))
	case werr != nil:
		rt.problem(slog.LevelError, "record outcome", "tasks: could not record the task's outcome; it is recovered once its lease lapses",
			slog.String("task_id", rn.id), slog.Any("error", werr))
	default:
		if rec.Status == StatusCompleted {
			rt.audit(ctx, "completed", rec, slog.Bool("is_error", rec.IsError))
		} else {
			rt.audit(ctx, "failed", rec, slog.String("reason", rec.StatusMessage))
		}
		rt.transition(rec, was, rec.Status)
		rn.changed(rec)
		rt.publish(ctx, rn.id, SignalStatus)
	}
}

// applyOutcome writes a handler's outcome into the record as its terminal
// state.
func applyOutcome(rec *Record, res Result, err error) {
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil && !isJSONObject(res.Value):
		fail(rec, "Task failed: the handler returned a result that is not a JSON object.")
	case err == nil:
		rec.Status = StatusCompleted
		rec.StatusMessage = ""
		rec.Result = cloneRaw(res.Value)
		rec.IsError = res.IsError
	case errors.As(err, &rpcErr):
		rec.Status = StatusFailed
		rec.StatusMessage = rpcErr.Message
		e := *rpcErr
		e.Data = cloneRaw(rpcErr.Data)
		rec.Error = &e
	default:
		fail(rec, "Task failed: "+err.Error())
	}
}

// fail makes the record failed with an internal error carrying msg.
func fail(rec *Record, msg string) {
	rec.Status = StatusFailed
	rec.StatusMessage = msg
	rec.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}

// isJSONObject reports whether b is one valid JSON object.
func isJSONObject(b []byte) bool {
	v := jsontext.Value(b)
	return v.IsValid() && v.Kind() == '{'
}
