package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// Expiry in batches: one DeleteExpired call deletes deleteBatch finished
// tasks, and a sweep keeps calling while batches come back full, up to
// maxDeleteBatches. At the default sweep interval that is up to 10,000
// deletions a second per instance, well above the rate at which the bench
// creates tasks (a few thousand a second); deleting one task at a time
// managed about 200.
const (
	deleteBatch      = 500
	maxDeleteBatches = 100
)

// sweepExpired deletes the tasks whose TTL has run out: the finished ones
// in batches, and the unfinished ones once their work is cancelled.
func (r *Runtime) sweepExpired(ctx context.Context) {
	if !r.deleteExpired(ctx) {
		return
	}
	cancelled := false
	for range maxSweepBatches {
		ids, err := r.store.Expired(ctx, r.now(), sweepBatch)
		if err != nil {
			if ctx.Err() == nil {
				r.problem(slog.LevelWarn, "list expired", "tasks: could not list expired tasks; the next sweep tries again", slog.Any("error", err))
			}
			return
		}
		for _, id := range ids {
			cancelled = r.expire(ctx, id) || cancelled
		}
		if len(ids) < sweepBatch {
			break
		}
	}
	if cancelled {
		r.deleteExpired(ctx)
	}
}

// deleteExpired deletes finished expired tasks in batches until none is
// left or the sweep's budget is spent, and reports whether the store could
// be reached.
func (r *Runtime) deleteExpired(ctx context.Context) bool {
	for range maxDeleteBatches {
		gone, err := r.store.DeleteExpired(ctx, r.now(), deleteBatch)
		if err != nil {
			if ctx.Err() == nil {
				r.problem(slog.LevelWarn, "delete expired", "tasks: could not delete expired tasks; the next sweep tries again", slog.Any("error", err))
			}
			return false
		}
		for _, d := range gone {
			rec := &Record{ID: d.ID, Principal: d.Principal, Method: d.Method, Name: d.Name}
			r.audit(ctx, "expired", rec, slog.String("status", string(d.Status)))
			r.transition(rec, previous{status: d.Status}, "")
		}
		if len(gone) < deleteBatch {
			return true
		}
	}
	return true
}

// expire cancels the task if it is still running and stops its handler
// wherever it runs, so that deleteExpired can delete it. It reports whether
// it cancelled the task.
func (r *Runtime) expire(ctx context.Context, id string) bool {
	now := r.now()
	var was previous
	rec, err := r.mutate(ctx, id, SignalCancel, func(rec *Record) error {
		if rec.ExpiresAt.IsZero() || rec.ExpiresAt.After(now) || rec.Status.Terminal() {
			return errUnchanged
		}
		was = previousOf(rec)
		rec.Status = StatusCancelled
		rec.StatusMessage = fmt.Sprintf("The task expired: its time to live of %v ran out.", rec.ExpiresAt.Sub(rec.CreatedAt))
		rec.UpdatedAt = now
		return nil
	})
	switch {
	case err == nil:
		r.transition(rec, was, StatusCancelled)
		r.publish(ctx, id, SignalCancel)
		if rn := r.localRun(id); rn != nil {
			rn.changed(rec)
			rn.stop(ErrExpired)
		}
		return true
	case errors.Is(err, errUnchanged), errors.Is(err, ErrTerminal), errors.Is(err, ErrNotFound):
		// Finished meanwhile (the next batch deletes it), or gone.
	case ctx.Err() == nil:
		r.problem(slog.LevelWarn, "cancel expired", "tasks: could not cancel an expired task; the next sweep tries again",
			slog.String("task_id", id), slog.Any("error", err))
	}
	return false
}
