package tasks

import (
	"context"
	"sync"
	"time"
)

// Poll pacing. Some clients ignore the suggested pollInterval and poll a
// task back to back: the bench harness's poller does, and so does any
// script that loops on tasks/get. Each such poll costs the server a whole
// request while the task has not changed. Poll answers them at most once
// per pacing interval for an unchanged, unfinished task, and at once when
// the task changes, so a fast poller learns of a change no later than it
// would have, and costs at most one answer per interval in between.

// maxPollMarks bounds the polls a Runtime remembers for pacing. Marks
// older than the pacing interval are of no more use and are dropped to
// make room; past the bound, polls go unpaced rather than unbounded.
const maxPollMarks = 16384

// pacer remembers, for each task polled lately on this instance, when
// the last poll was answered and at which version of the task.
type pacer struct {
	mu    sync.Mutex
	polls map[string]pollMark
}

// pollMark is one answered poll.
type pollMark struct {
	at      time.Time
	version uint64
}

// Poll returns the principal's task as Get does, paced for clients that
// poll faster than the Runtime suggests: when this instance answered a
// Poll of the same unfinished task, or started it (the caller answers with
// the created task), less than the pacing interval ago (WithPollPacing,
// 50 ms by default) and the task has not changed since,
// Poll first waits until it changes or the interval has passed since that
// answer. It returns ctx's cause, or ErrClosed, if either ends the wait.
// Servers answer tasks/get with it; Get stays immediate.
func (r *Runtime) Poll(ctx context.Context, principal, id string) (Task, error) {
	every := r.cfg.pollPacing
	if every <= 0 {
		return r.Get(ctx, principal, id)
	}
	mark, recent := r.pacer.recent(id, every)
	if !recent {
		rec, err := r.load(ctx, principal, id, false)
		if err != nil {
			return Task{}, err
		}
		r.pacer.answered(id, rec, every)
		return r.view(rec), nil
	}
	rec, err := r.paced(ctx, principal, id, mark.version, time.Until(mark.at.Add(every)))
	if err != nil {
		return Task{}, err
	}
	r.pacer.answered(id, rec, every)
	return r.view(rec), nil
}

// paced reads the task once it has moved past version, or once wait is
// over. A task that has already moved on is answered from that first
// read; otherwise it follows the task's signals and reads again, so that
// no change after the read that found it unchanged goes unnoticed.
func (r *Runtime) paced(ctx context.Context, principal, id string, version uint64, wait time.Duration) (*Record, error) {
	rec, err := r.load(ctx, principal, id, false)
	if err != nil || rec.Version != version || rec.Status.Terminal() {
		return rec, err
	}
	changed := make(chan struct{}, 1)
	sub, _, err := subscribeFunc(ctx, r.bus, id, func(Signal) {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if err != nil { // pacing is a saving, not a guarantee: answer now
		return rec, nil
	}
	defer sub.Close()
	rec, err = r.load(ctx, principal, id, false)
	if err != nil || rec.Version != version || rec.Status.Terminal() {
		return rec, err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-changed:
	case <-timer.C:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-r.closing:
		return nil, ErrClosed
	}
	return r.load(ctx, principal, id, false)
}

// recent returns the mark of the task's last answered poll, if it is
// less than every old.
func (p *pacer) recent(id string, every time.Duration) (pollMark, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m, ok := p.polls[id]
	return m, ok && time.Since(m.at) < every
}

// answered marks the task's state rec as told to its client now, by a
// poll's answer or by the answer creating it: an unfinished task's later
// polls are paced; a finished one's never are.
func (p *pacer) answered(id string, rec *Record, every time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rec.Status.Terminal() {
		delete(p.polls, id)
		return
	}
	now := time.Now()
	if _, ok := p.polls[id]; !ok && len(p.polls) >= maxPollMarks {
		for other, m := range p.polls {
			if now.Sub(m.at) >= every {
				delete(p.polls, other)
			}
		}
		if len(p.polls) >= maxPollMarks {
			return
		}
	}
	p.polls[id] = pollMark{at: now, version: rec.Version}
}
