package tasks

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// progressWriters is how many statusMessage writes from progress reports
// one Runtime has in flight at most, whatever the number of tasks
// reporting. Writing each report as it came let 10,000 running tasks
// reporting every second queue 10,000 writes a second in front of every
// task creation (on SQLite, creating 10,000 tasks under that load did not
// finish in ten minutes, and the memory store's p99 was a second); through
// one writer, creation waits for one progress write at most (see
// BenchmarkCreateUnderProgressLoad), and a task reporting faster than the
// store takes writes has its latest message written when its turn comes.
const progressWriters = 1

// progress throttles a handler's progress reports into statusMessage
// writes: at most one per interval, always ending with the latest message.
// The writes themselves are queued on the Runtime's progressQueue.
type progress struct {
	rn       *run
	interval time.Duration

	// writing holds a token while a write is in flight: one write at a
	// time, so a stale message never lands last. A channel, not a mutex,
	// because stop waits on it for as long as a store call takes, and a
	// goroutine waiting on a channel is one testing/synctest can wait out.
	// Made by the first report, under mu: most handlers never report, and
	// a run without one has no write to wait for (with the Exec inside its
	// run, a task life's allocations 134 → 132, BenchmarkTaskLifeCost,
	// stdio, legacy, 32 in flight).
	writing chan struct{}

	mu         sync.Mutex
	last       time.Time // when the last write began
	pending    string
	hasPending bool
	timer      *time.Timer
	queued     bool // on the Runtime's queue, to be written
	stopped    bool
}

// report records the message as the one to write next, and queues the
// task for writing once the interval since the last write is over.
func (p *progress) report(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.pending, p.hasPending = msg, true
	if p.writing == nil {
		p.writing = make(chan struct{}, 1)
	}
	if p.queued || p.timer != nil {
		return // the latest message goes with the write already due
	}
	if delay := p.interval - time.Since(p.last); delay > 0 {
		p.timer = time.AfterFunc(delay, p.due)
		return
	}
	p.queued = true
	p.rn.rt.progressQueue.push(p)
}

// due queues the task for writing once its interval is over.
func (p *progress) due() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = nil
	if p.stopped || !p.hasPending || p.queued {
		return
	}
	p.queued = true
	p.rn.rt.progressQueue.push(p)
}

// flush writes the latest message, if the task still has one to write.
func (p *progress) flush() {
	p.writing <- struct{}{}
	defer func() { <-p.writing }()
	p.mu.Lock()
	p.queued = false
	if p.stopped || !p.hasPending {
		p.mu.Unlock()
		return
	}
	msg := p.pending
	p.hasPending = false
	p.last = time.Now()
	p.mu.Unlock()
	p.write(msg)
}

// write stores msg as the statusMessage of the unfinished task.
func (p *progress) write(msg string) {
	rt := p.rn.rt
	rec, err := rt.mutate(p.rn.ctx, p.rn.id, SignalStatus, func(rec *Record) error {
		if rec.Status.Terminal() || rec.Owner != rt.cfg.instanceID || rec.StatusMessage == msg {
			return errUnchanged
		}
		rec.StatusMessage = msg
		rec.UpdatedAt = rt.now()
		return nil
	})
	switch {
	case err == nil:
		p.rn.changed(rec)
		rt.publish(context.Background(), p.rn.id, SignalStatus)
	case !errors.Is(err, errUnchanged) && p.rn.ctx.Err() == nil:
		rt.log.Debug("tasks: could not write a progress message; the next report tries again",
			slog.String("task_id", p.rn.id), slog.Any("error", err))
	}
}

// stop drops any queued message and waits for a write in progress.
func (p *progress) stop() {
	p.mu.Lock()
	p.stopped = true
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	writing := p.writing
	p.mu.Unlock()
	if writing == nil {
		return // never reported: no write was ever queued
	}
	writing <- struct{}{}
	<-writing
}

// progressQueue holds, in order, the tasks whose progress is due to be
// written, for the Runtime's progress writers.
type progressQueue struct {
	mu    sync.Mutex
	ready []*progress
	wake  chan struct{} // holds a token while ready may be non-empty
}

func newProgressQueue() *progressQueue {
	return &progressQueue{wake: make(chan struct{}, 1)}
}

// push queues p and wakes a writer.
func (q *progressQueue) push(p *progress) {
	q.mu.Lock()
	q.ready = append(q.ready, p)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop takes the first queued task, if any.
func (q *progressQueue) pop() (*progress, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.ready) == 0 {
		return nil, false
	}
	p := q.ready[0]
	q.ready[0] = nil
	q.ready = q.ready[1:]
	if len(q.ready) > 0 {
		select { // another writer may take the next one
		case q.wake <- struct{}{}:
		default:
		}
	}
	return p, true
}

// writeProgress writes queued progress until ctx ends.
func (r *Runtime) writeProgress(ctx context.Context, done *sync.WaitGroup) {
	defer done.Done()
	q := r.progressQueue
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		for {
			p, ok := q.pop()
			if !ok || ctx.Err() != nil {
				break
			}
			p.flush()
		}
	}
}
