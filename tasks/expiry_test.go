package tasks_test

import (
	"errors"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

func TestExpiryCancelsARunningTaskThenDeletesIt(t *testing.T) {
	c := newCluster(t)
	// One observer for both instances sums their reports, as a metrics
	// backend would.
	obs := newCountingObserver()
	a := c.instance("a", tasks.WithObserver(obs))
	b := c.instance("b", tasks.WithObserver(obs))
	started, causes := make(chan *tasks.Exec, 1), make(chan error, 1)
	a.Register("tools/call", "slow_compute", blockUntilStopped(started, causes), tasks.Policy{})
	task, err := a.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "slow_compute", TTL: time.Minute})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	recv(t, started, "the handler to start")

	// Past the lease, which a's heartbeat renews as the clock moves: only
	// the TTL may end the task.
	c.advanceKeepingLease(t, obs, task.ID, 59*time.Second)
	if _, err := b.Get(testCtx(t), "alice", task.ID); err != nil {
		t.Fatalf("the task vanished before its TTL ran out: %v", err)
	}
	c.clock.Advance(time.Second)
	if _, err := b.Get(testCtx(t), "alice", task.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get once the TTL ran out: got %v, want ErrNotFound", err)
	}
	if cause := recv(t, causes, "the expired task's handler to stop"); !errors.Is(cause, tasks.ErrExpired) {
		t.Fatalf("the handler's context ended with %v, want ErrExpired", cause)
	}
	obs.wait(t, "the sweep to cancel and then delete the task", func() (done bool) {
		obs.read(func() {
			done = obs.transitions[[2]tasks.Status{tasks.StatusCancelled, ""}] == 1
		})
		return done
	})
	obs.read(func() {
		if n := obs.transitions[[2]tasks.Status{tasks.StatusWorking, tasks.StatusCancelled}]; n != 1 {
			t.Errorf("the task was cancelled %d times before deletion, want once", n)
		}
		if n := obs.transitions[[2]tasks.Status{tasks.StatusWorking, tasks.StatusCompleted}]; n != 0 {
			t.Errorf("the expired task completed")
		}
	})
	if _, err := c.store.Get(testCtx(t), task.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("the store still holds the expired task: %v", err)
	}
}

func TestExpiryDeletesFinishedTasksAndTheirResults(t *testing.T) {
	c := newCluster(t)
	obs := newCountingObserver()
	rt := c.instance("a", tasks.WithObserver(obs), tasks.WithTTL(time.Minute, time.Hour))
	returning(rt, "job", nil, tasks.Result{Value: raw(`{"secret":"result"}`)}, nil)
	task := start(t, rt, "alice", "job")
	wait(t, rt, "alice", task.ID)
	c.clock.Advance(time.Minute)
	obs.wait(t, "the sweep to delete the finished task", func() (done bool) {
		obs.read(func() { done = obs.transitions[[2]tasks.Status{tasks.StatusCompleted, ""}] == 1 })
		return done
	})
	if _, err := c.store.Get(testCtx(t), task.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("the store still holds the expired task: %v", err)
	}
}
