package tasks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// sweepExpired deletes the tasks whose TTL has run out, cancelling the
// running ones first.
func (r *Runtime) sweepExpired(ctx context.Context) {
	for range maxSweepBatches {
		ids, err := r.store.Expired(ctx, r.now(), sweepBatch)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("tasks: could not list expired tasks; the next sweep tries again", slog.Any("error", err))
			}
			return
		}
		for _, id := range ids {
			r.expire(ctx, id)
		}
		if len(ids) < sweepBatch {
			return
		}
	}
}

// expire cancels the task if it is still running, stops its handler wherever
// it runs, then deletes it.
func (r *Runtime) expire(ctx context.Context, id string) {
	now := r.now()
	var was, final Status
	rec, err := r.mutate(ctx, id, func(rec *Record) error {
		if rec.ExpiresAt.IsZero() || rec.ExpiresAt.After(now) {
			return errNotDue
		}
		if rec.Status.Terminal() {
			final = rec.Status
			return errUnchanged
		}
		was, final = rec.Status, StatusCancelled
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
			rn.stop(ErrExpired)
		}
	case errors.Is(err, errUnchanged):
	case errors.Is(err, ErrTerminal):
		// Finished between the read and the write; the next sweep deletes it.
		return
	case errors.Is(err, errNotDue), errors.Is(err, ErrNotFound):
		return
	default:
		r.log.Warn("tasks: could not cancel an expired task; the next sweep tries again",
			slog.String("task_id", id), slog.Any("error", err))
		return
	}
	if rec == nil {
		if rec, err = r.store.Get(ctx, id); err != nil {
			return
		}
	}
	if err := r.store.Delete(ctx, id); err != nil {
		if !errors.Is(err, ErrNotFound) {
			r.log.Warn("tasks: could not delete an expired task; the next sweep tries again",
				slog.String("task_id", id), slog.Any("error", err))
		}
		return
	}
	r.audit(ctx, "expired", rec, slog.String("status", string(final)))
	r.transition(rec, final, "")
}

// errNotDue tells expire that the task has not expired after all.
var errNotDue = errors.New("tasks: the task has not expired")
