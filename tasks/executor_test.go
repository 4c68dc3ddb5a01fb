package tasks_test

import (
	"context"
	"sync"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// serialExecutor runs handlers one at a time, in order, on one worker.
type serialExecutor struct{ queue chan func() }

func newSerialExecutor(t *testing.T) *serialExecutor {
	e := &serialExecutor{queue: make(chan func(), 16)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for run := range e.queue {
			run()
		}
	}()
	t.Cleanup(func() {
		close(e.queue)
		<-done
	})
	return e
}

func (e *serialExecutor) Go(run func()) { e.queue <- run }

func TestExecutorRunsHandlersAndQueuedRunsHonourCancel(t *testing.T) {
	c := newCluster(t)
	exec := newSerialExecutor(t)
	rt := c.instance("a", tasks.WithExecutor(exec))
	var mu sync.Mutex
	var ran []string
	release := make(chan struct{})
	var first tasks.Task
	sawFirstDone := make(chan bool, 1)
	rt.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		mu.Lock()
		ran = append(ran, x.TaskID())
		n := len(ran)
		mu.Unlock()
		if n == 1 {
			<-release
		} else {
			got, err := c.store.Get(ctx, first.ID)
			sawFirstDone <- err == nil && got.Status == tasks.StatusCompleted
		}
		return tasks.Result{Value: raw(`{}`)}, nil
	}, tasks.Policy{})

	first = start(t, rt, "alice", "job")
	queued := start(t, rt, "alice", "job")
	third := start(t, rt, "alice", "job")
	if _, err := rt.Cancel(testCtx(t), "alice", queued.ID); err != nil {
		t.Fatalf("Cancel of a queued task: %v", err)
	}
	close(release)
	if !recv(t, sawFirstDone, "the third task to run") {
		t.Fatalf("the second handler started before the first finished: the executor was not used")
	}
	if got := wait(t, rt, "alice", third.ID); got.Status != tasks.StatusCompleted {
		t.Fatalf("the third task ended %s", got.Status)
	}
	if got := wait(t, rt, "alice", queued.ID); got.Status != tasks.StatusCancelled {
		t.Fatalf("the cancelled queued task ended %s", got.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 2 || ran[0] != first.ID || ran[1] != third.ID {
		t.Fatalf("handlers ran for %v, want the first and third tasks only", ran)
	}
}
