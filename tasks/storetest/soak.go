package storetest

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// Soak parameters: more short tasks than the sweep deleted at one go
// before deletes were batched (1,000), with the TTL and the bound the
// expiry promise names.
const (
	soakTasks    = 1500
	soakTTL      = time.Minute
	soakBound    = 30 * time.Second
	soakDeadline = 4 * time.Minute // for creating and finishing the tasks on a busy machine
)

// soakGate observes an instance: it counts the tasks that completed, and
// once armed, holds the sweep loop at the end of every sweep (its lease
// listing) until resumed.
type soakGate struct {
	tasks.NopObserver
	completed atomic.Int64
	finished  chan struct{} // closed when every soak task completed
	armed     atomic.Bool
	held      chan struct{} // receives when a sweep is held
	resume    chan struct{} // lets a held sweep go on
	done      chan struct{} // closed when the test ends: nothing is held any more
	once      sync.Once
}

func (g *soakGate) TaskTransition(from, to tasks.Status) {
	if to == tasks.StatusCompleted && g.completed.Add(1) == soakTasks {
		close(g.finished)
	}
}

func (g *soakGate) StoreCall(op string, _ time.Duration, _ error) {
	if op != "LeaseExpired" || !g.armed.Load() {
		return
	}
	select {
	case g.held <- struct{}{}:
	case <-g.done:
		return
	}
	select {
	case <-g.resume:
	case <-g.done:
	}
}

// awaitHeld waits until a sweep is held at its end.
func (g *soakGate) awaitHeld(t *testing.T) {
	t.Helper()
	select {
	case <-g.held:
	case <-time.After(deliveryDeadline):
		t.Fatalf("no sweep ended within %v", deliveryDeadline)
	}
}

// testExpiryKeepsPace creates a burst of short tasks, moves the clock to
// their TTL plus the bound between two sweeps, and checks that the one
// sweep that follows leaves no expired task in the store: each sweep
// deletes all that is due, so with sweeps every few seconds nothing
// outlives its TTL by more than the bound.
func testExpiryKeepsPace(t *testing.T, c *cluster) {
	gate := &soakGate{finished: make(chan struct{}), held: make(chan struct{}), resume: make(chan struct{}), done: make(chan struct{})}
	var store tasks.Store
	rt := c.start("soak", func(s tasks.Store) tasks.Store { store = s; return s }, tasks.WithObserver(gate),
		tasks.WithLimits(0, 0), tasks.WithLease(time.Hour, time.Minute))
	t.Cleanup(func() { gate.once.Do(func() { close(gate.done) }) }) // before rt closes
	rt.Register("tools/call", "quick", func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: json.RawMessage(`{}`)}, nil
	}, tasks.Policy{})

	ctx, cancel := context.WithTimeout(context.Background(), soakDeadline)
	defer cancel()
	const creators = 8
	errs := make(chan error, creators)
	for w := range creators {
		go func() {
			for i := w; i < soakTasks; i += creators {
				if _, err := rt.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "quick", TTL: soakTTL}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range creators {
		if err := <-errs; err != nil {
			t.Fatalf("Start: %v", err)
		}
	}
	select {
	case <-gate.finished:
	case <-ctx.Done():
		t.Fatalf("after %v only %d of %d tasks had completed", soakDeadline, gate.completed.Load(), soakTasks)
	}

	// Between two sweeps, the clock moves on; then exactly one sweep runs.
	gate.armed.Store(true)
	gate.awaitHeld(t)
	c.clock.Advance(soakTTL + soakBound)
	gate.resume <- struct{}{}
	gate.awaitHeld(t)
	left, err := store.Expired(testCtx(t), c.clock.Now(), soakTasks)
	if err != nil {
		t.Fatalf("Expired: %v", err)
	}
	if len(left) != 0 {
		t.Fatalf("%d of %d tasks are still stored %v after their TTL ran out, after a whole sweep; want none",
			len(left), soakTasks, soakBound)
	}
}
