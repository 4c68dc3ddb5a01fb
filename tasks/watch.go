package tasks

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"time"
)

// Watch yields the principal's task now and again each time its status,
// status message, outstanding input requests or outcome change, ending
// after the terminal state. It yields an error, and ends, when the task
// is not visible (ErrNotFound), ctx ends (its cause) or the Runtime closes
// (ErrClosed). Changes follow bus signals; should one be lost, the store is
// re-read every poll interval. Fast successive changes may be seen as one.
func (r *Runtime) Watch(ctx context.Context, principal, id string) iter.Seq2[Task, error] {
	return func(yield func(Task, error) bool) {
		// A finished task needs no subscription: what tasks/result mostly
		// asks for.
		rec, err := r.load(ctx, principal, id, false)
		if err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			yield(Task{}, err)
			return
		}
		if rec.Status.Terminal() {
			yield(r.view(rec), nil)
			return
		}
		sub, err := r.bus.Subscribe(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				err = context.Cause(ctx)
			}
			yield(Task{}, fmt.Errorf("tasks: watching a task: %w", err))
			return
		}
		defer sub.Close()
		ticker := time.NewTicker(r.cfg.pollInterval)
		defer ticker.Stop()
		var last *Task
		fromStore := !r.cache.inline(id)
		for {
			rec, err := r.load(ctx, principal, id, fromStore)
			if err != nil {
				yield(Task{}, err)
				return
			}
			t := r.view(rec)
			if last == nil || changed(*last, t) {
				if !yield(t, nil) {
					return
				}
				last = &t
			}
			if t.Terminal() {
				return
			}
			select {
			case <-sub.Signals():
				// The cache may answer if it hears of a change before this
				// watcher is woken by it.
				fromStore = !r.cache.inline(id)
			case <-ticker.C:
				fromStore = true // in case a signal was lost
			case <-ctx.Done():
				yield(Task{}, context.Cause(ctx))
				return
			case <-r.closing:
				yield(Task{}, ErrClosed)
				return
			}
		}
	}
}

// Wait blocks until the principal's task has finished and returns it: what
// the legacy tasks/result needs. It fails as Watch does.
func (r *Runtime) Wait(ctx context.Context, principal, id string) (Task, error) {
	var last Task
	for t, err := range r.Watch(ctx, principal, id) {
		if err != nil {
			return Task{}, err
		}
		last = t
	}
	return last, nil
}

// changed reports whether b shows something a watcher has not seen in a.
func changed(a, b Task) bool {
	return a.Status != b.Status || a.StatusMessage != b.StatusMessage || !a.UpdatedAt.Equal(b.UpdatedAt) ||
		!slices.EqualFunc(a.InputRequests, b.InputRequests, func(x, y InputRequest) bool { return x.Key == y.Key })
}
