package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// Execution leases. The instance running a task owns it (Record.Owner) until
// LeaseExpiresAt and renews the lease every heartbeat. Every instance's
// sweep looks for lapsed leases and applies the task's Policy: fail it, or
// take it over and run it again. Every write the runtime makes on behalf of
// a run checks that its instance is still the owner, and compare-and-swap
// makes that check atomic, so a task has at most one writer.

// LeaseRenewer is an optional interface of a Store that extends many
// leases in one call. The heartbeat uses it when the Store has it, in
// batches of renewBatch: renewing 10,000 leases one compare-and-swap at a
// time (a read and a write each) took about 40 s on SQLite with full sync,
// longer than the 30 s lease.
type LeaseRenewer interface {
	// RenewLeases sets LeaseExpiresAt to until on each record among ids
	// that is unfinished and whose Owner is owner, and increments its
	// Version as Update does, each record atomically; it returns the IDs
	// of the records it renewed, in any order. Records that are finished,
	// owned by another instance or missing are left as they are and not
	// returned. It returns an error wrapping ctx.Err() when the context is
	// already done.
	RenewLeases(ctx context.Context, owner string, ids []string, until time.Time) ([]string, error)
}

// renewBatch is how many leases one RenewLeases call extends.
const renewBatch = 500

// heartbeatLoop renews the leases of this instance's runs every heartbeat
// until ctx ends.
func (r *Runtime) heartbeatLoop(ctx context.Context) {
	defer close(r.beatsDone)
	ticker := time.NewTicker(r.cfg.heartbeat)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			r.renewAll(ctx, r.liveRuns())
		}
	}
}

// liveRuns returns the launched runs whose handlers have not been stopped.
func (r *Runtime) liveRuns() []*run {
	r.mu.Lock()
	defer r.mu.Unlock()
	runs := make([]*run, 0, len(r.runs))
	for _, rn := range r.runs {
		rn.mu.Lock()
		launched := rn.launched
		rn.mu.Unlock()
		if launched && rn.ctx.Err() == nil {
			runs = append(runs, rn)
		}
	}
	return runs
}

// renewAll extends the leases of the runs, in batches when the Store is a
// LeaseRenewer. A run waiting for answers has its lease renewed alone, as
// that reads its record: an answer whose signal was lost then still
// reaches it. A run the batch did not renew (finished, deleted or taken
// over meanwhile) is renewed alone too, which stops it.
func (r *Runtime) renewAll(ctx context.Context, runs []*run) {
	renewer, ok := leaseRenewerOf(r.store)
	if !ok {
		for _, rn := range runs {
			r.renew(ctx, rn)
		}
		return
	}
	batch := make([]*run, 0, min(len(runs), renewBatch))
	for i, rn := range runs {
		if rn.exec.awaitsAnswers() {
			r.renew(ctx, rn)
		} else {
			batch = append(batch, rn)
		}
		if len(batch) == renewBatch || (i == len(runs)-1 && len(batch) > 0) {
			r.renewBatch(ctx, renewer, batch)
			batch = batch[:0]
		}
	}
}

// renewBatch extends the leases of the runs in one call.
func (r *Runtime) renewBatch(ctx context.Context, renewer LeaseRenewer, runs []*run) {
	now := r.now()
	until := now.Add(r.cfg.lease)
	ids := make([]string, len(runs))
	for i, rn := range runs {
		ids[i] = rn.id
	}
	renewed, err := renewer.RenewLeases(ctx, r.cfg.instanceID, ids, until)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		for _, rn := range runs {
			r.renewFailed(rn, now, err)
		}
		return
	}
	done := make(map[string]bool, len(renewed))
	for _, id := range renewed {
		done[id] = true
	}
	for _, rn := range runs {
		if !done[rn.id] {
			r.renew(ctx, rn)
			continue
		}
		rn.mu.Lock()
		rn.leaseUntil = until
		rn.mu.Unlock()
		r.cfg.observer.LeaseRenewed()
	}
}

// leaseRenewerOf returns the store as a LeaseRenewer, if it is one, seen
// through the Observer's timing when the Runtime has one.
func leaseRenewerOf(store Store) (LeaseRenewer, bool) {
	var observed observedStore
	switch s := store.(type) {
	case observedStore:
		observed = s
	case observedSharingStore: // the memory store's
		observed = s.observedStore
	default:
		renewer, ok := store.(LeaseRenewer)
		return renewer, ok
	}
	inner, ok := observed.store.(LeaseRenewer)
	return observedRenewer{inner, observed.obs}, ok
}

// observedRenewer times RenewLeases calls for the Observer.
type observedRenewer struct {
	renewer LeaseRenewer
	obs     Observer
}

func (o observedRenewer) RenewLeases(ctx context.Context, owner string, ids []string, until time.Time) ([]string, error) {
	start := time.Now()
	renewed, err := o.renewer.RenewLeases(ctx, owner, ids, until)
	o.obs.StoreCall("RenewLeases", time.Since(start), err)
	return renewed, err
}

// awaitsAnswers tells whether the handler waits for answers to requests
// it made.
func (x *Exec) awaitsAnswers() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.waiters) > 0
}

// renew extends the run's lease. If the task was cancelled, deleted or taken
// over meanwhile, it stops the run instead; if the store cannot be reached
// until the lease would lapse, it stops the run too, since another instance
// may then take the task over.
func (r *Runtime) renew(ctx context.Context, rn *run) {
	now := r.now()
	var seen *Record
	rec, err := r.mutate(ctx, rn.id, "", func(rec *Record) error {
		if rec.Status.Terminal() || rec.Owner != r.cfg.instanceID {
			seen = rec
			return errUnchanged
		}
		rec.LeaseExpiresAt = now.Add(r.cfg.lease)
		return nil
	})
	switch {
	case err == nil:
		rn.mu.Lock()
		rn.leaseUntil = rec.LeaseExpiresAt
		rn.mu.Unlock()
		r.cfg.observer.LeaseRenewed()
		rn.exec.deliver(rec)
	case errors.Is(err, errUnchanged):
		rn.observe(seen, nil)
	case errors.Is(err, ErrNotFound):
		rn.observe(nil, err)
	case ctx.Err() != nil:
	default:
		r.renewFailed(rn, now, err)
	}
}

// renewFailed reports that the run's lease could not be renewed at now,
// and stops the run if its lease has lapsed.
func (r *Runtime) renewFailed(rn *run, now time.Time, err error) {
	rn.mu.Lock()
	lapsed := !now.Before(rn.leaseUntil)
	rn.mu.Unlock()
	r.problem(slog.LevelWarn, "renew lease", "tasks: could not renew a task's lease", slog.String("task_id", rn.id),
		slog.Bool("lapsed", lapsed), slog.Any("error", err))
	if lapsed {
		rn.lose(&Record{ID: rn.id, Principal: rn.exec.principal, Method: rn.exec.method, Name: rn.exec.name},
			fmt.Sprintf("the lease could not be renewed before it lapsed: %v", err))
	}
}

// sweepLeases recovers the tasks whose leases have lapsed.
func (r *Runtime) sweepLeases(ctx context.Context) {
	for range maxSweepBatches {
		ids, err := r.store.LeaseExpired(ctx, r.now(), sweepBatch)
		if err != nil {
			if ctx.Err() == nil {
				r.problem(slog.LevelWarn, "list lapsed leases", "tasks: could not list lapsed leases; the next sweep tries again", slog.Any("error", err))
			}
			return
		}
		for _, id := range ids {
			r.recover(ctx, id)
		}
		if len(ids) < sweepBatch {
			return
		}
	}
}

// recover applies the task's Policy to a task whose lease has lapsed.
func (r *Runtime) recover(ctx context.Context, id string) {
	rec, err := r.store.Get(ctx, id)
	if err != nil {
		return
	}
	now := r.now()
	if rec.Status.Terminal() || rec.Owner == "" || rec.LeaseExpiresAt.After(now) {
		return
	}
	if rec.Owner == r.cfg.instanceID {
		if rn := r.localRun(id); rn != nil && rn.ctx.Err() == nil {
			r.renew(ctx, rn) // our own heartbeat was late, nothing was lost
			return
		}
	}
	if rec.Policy.Rerun && rec.Runs < rec.Policy.maxRuns() {
		h, ok := r.handler(rec.Method, rec.Name)
		if !ok {
			r.park(ctx, rec)
			return
		}
		r.rerun(ctx, rec, h.fn)
		return
	}
	r.failLost(ctx, rec)
}

// park sets the lapsed lease of a lost task this instance cannot run (it
// lacks the handler) a lease ahead, still in the lost owner's name, for an
// instance that has the handler to take the task over when it lapses
// again. Left lapsed, such tasks stayed at the head of every sweep's
// LeaseExpired batches, and a hundred of them kept every other lost task
// from being recovered. The change is no news to clients and signals
// nothing.
func (r *Runtime) park(ctx context.Context, rec *Record) {
	now := r.now()
	stillLapsed := lapsedFrom(rec.Owner, now)
	until := now.Add(r.cfg.lease)
	_, err := r.mutate(ctx, rec.ID, "", func(cur *Record) error {
		if !stillLapsed(cur) {
			return errUnchanged
		}
		cur.LeaseExpiresAt = until
		return nil
	})
	switch {
	case err == nil:
		r.log.Debug("tasks: a lost task waits for an instance that has its handler", slog.String("task_id", rec.ID),
			slog.String("method", rec.Method), slog.String("name", rec.Name), slog.Time("lapses_again", until))
	case errors.Is(err, errUnchanged) || ctx.Err() != nil:
	default:
		r.problem(slog.LevelWarn, "park lost task", "tasks: could not set aside a lost task that waits for an instance with its handler; the next sweep tries again",
			slog.String("task_id", rec.ID), slog.Any("error", err))
	}
}

// lapsedFrom returns a check that the record is still unfinished and still
// held by the lost owner under a lapsed lease, as the sweep saw it.
func lapsedFrom(lost string, now time.Time) func(*Record) bool {
	return func(rec *Record) bool {
		return !rec.Status.Terminal() && rec.Owner == lost && !rec.LeaseExpiresAt.After(now)
	}
}

// rerun takes the task over and runs its handler again on this instance.
func (r *Runtime) rerun(ctx context.Context, rec *Record, fn HandlerFunc) {
	lost, now := rec.Owner, r.now()
	stillLapsed := lapsedFrom(lost, now)
	rn, err := r.newRun(ctx, rec, fn)
	if err != nil {
		return // closing, or already running here
	}
	taken, err := r.mutate(ctx, rec.ID, SignalStatus, func(cur *Record) error {
		if !stillLapsed(cur) {
			return errUnchanged
		}
		cur.Owner = r.cfg.instanceID
		cur.LeaseExpiresAt = now.Add(r.cfg.lease)
		cur.Runs++
		return nil
	})
	if err != nil {
		rn.abandon()
		return
	}
	rn.exec.runs = taken.Runs
	r.audit(ctx, "re-run", taken, slog.String("lost_instance", lost), slog.Int("run", taken.Runs))
	r.cfg.observer.LeaseLost()
	r.publish(ctx, rec.ID, SignalStatus)
	rn.launch(taken.LeaseExpiresAt, nil)
}

// failLost fails a task whose worker was lost.
func (r *Runtime) failLost(ctx context.Context, rec *Record) {
	lost, now := rec.Owner, r.now()
	stillLapsed := lapsedFrom(lost, now)
	msg := fmt.Sprintf("Task failed: the worker running it (instance %s) was lost; its lease lapsed at %s.",
		lost, rec.LeaseExpiresAt.UTC().Format(time.RFC3339))
	if rec.Policy.Rerun {
		msg += fmt.Sprintf(" It was not run again because it already ran %d times.", rec.Runs)
	} else {
		msg += " It was not run again because its handler is not marked safe to repeat."
	}
	var was previous
	failed, err := r.mutate(ctx, rec.ID, SignalStatus, func(cur *Record) error {
		if !stillLapsed(cur) {
			return errUnchanged
		}
		was = previousOf(cur)
		cur.Status = StatusFailed
		cur.StatusMessage = msg
		cur.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
		cur.UpdatedAt = now
		return nil
	})
	if err != nil {
		return
	}
	r.audit(ctx, "failed", failed, slog.String("reason", msg), slog.String("lost_instance", lost))
	r.cfg.observer.LeaseLost()
	r.transition(failed, was, StatusFailed)
	r.publish(ctx, rec.ID, SignalStatus)
}
