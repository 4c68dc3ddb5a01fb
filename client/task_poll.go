package client

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Polling delays for TaskHandle.Wait when the server suggests no interval:
// it starts fast and backs off, doubling up to the cap. A suggested
// interval is honoured, but never below the floor, so a server asking for
// a tiny one cannot make the client spin.
const (
	taskPollFirst = 100 * time.Millisecond
	taskPollMax   = 5 * time.Second
	taskPollFloor = 10 * time.Millisecond
)

// poller paces the polls of one Wait.
type poller struct {
	backoff time.Duration // the last delay chosen without a suggestion
}

// wait sleeps until the next poll is due (the suggested interval, or the
// next backoff step without one), a status notification wakes it, or ctx
// ends, which it returns as an error.
func (p *poller) wait(ctx context.Context, taskID string, suggested time.Duration, wake <-chan struct{}) error {
	d := suggested
	if d <= 0 {
		p.backoff = min(max(2*p.backoff, taskPollFirst), taskPollMax)
		d = p.backoff
	}
	t := time.NewTimer(max(d, taskPollFloor))
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
		return fmt.Errorf("client: waiting for task %s: %w", taskID, contextError(ctx))
	}
	return nil
}

// contextError is the error of an ended context: its error, and the cause
// the canceller gave when there is one.
func contextError(ctx context.Context) error {
	err, cause := ctx.Err(), context.Cause(ctx)
	if cause == nil || cause == err {
		return err
	}
	return fmt.Errorf("%w: %w", err, cause)
}

// taskWakes lets status notifications wake the Waits of their task.
type taskWakes struct {
	mu   sync.Mutex
	byID map[string]map[chan struct{}]struct{}
}

// watch registers a wake-up channel for the task and returns it with the
// function that unregisters it.
func (w *taskWakes) watch(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	w.mu.Lock()
	if w.byID == nil {
		w.byID = make(map[string]map[chan struct{}]struct{})
	}
	if w.byID[id] == nil {
		w.byID[id] = make(map[chan struct{}]struct{})
	}
	w.byID[id][ch] = struct{}{}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		delete(w.byID[id], ch)
		if len(w.byID[id]) == 0 {
			delete(w.byID, id)
		}
		w.mu.Unlock()
	}
}

// wake wakes every Wait of the task; a wake-up already pending is enough.
func (w *taskWakes) wake(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.byID[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
