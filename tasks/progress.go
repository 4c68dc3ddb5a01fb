package tasks

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// progress throttles a handler's progress reports into statusMessage
// writes: at most one per interval, always ending with the latest message.
type progress struct {
	rn       *run
	interval time.Duration

	writeMu sync.Mutex // one write at a time, so a stale message never lands last

	mu         sync.Mutex
	last       time.Time // when the last write began
	pending    string
	hasPending bool
	timer      *time.Timer
	stopped    bool
}

// report queues the message and schedules a write if none is scheduled.
func (p *progress) report(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.pending, p.hasPending = msg, true
	if p.timer != nil {
		return
	}
	delay := max(p.interval-time.Since(p.last), 0)
	p.timer = time.AfterFunc(delay, p.flush)
}

// flush writes the latest queued message.
func (p *progress) flush() {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.mu.Lock()
	p.timer = nil
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
	_, err := rt.mutate(p.rn.ctx, p.rn.id, func(rec *Record) error {
		if rec.Status.Terminal() || rec.Owner != rt.cfg.instanceID || rec.StatusMessage == msg {
			return errUnchanged
		}
		rec.StatusMessage = msg
		rec.UpdatedAt = rt.now()
		return nil
	})
	switch {
	case err == nil:
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
	p.mu.Unlock()
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
}
