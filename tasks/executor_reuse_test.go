package tasks

import (
	"sync"
	"testing"
	"time"
)

// waitFor polls cond until it holds, failing the test after a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// idleCount returns how many of e's goroutines wait for a run.
func (e *reusingExecutor) idleCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.idle
}

// Every run starts at once, however many are running: a handler that waits
// never holds up another.
func TestReusingExecutorStartsEveryRunAtOnce(t *testing.T) {
	e := newReusingExecutor()
	const n = 3 * maxIdleExecutors
	var started, finished sync.WaitGroup
	started.Add(n)
	finished.Add(n)
	release := make(chan struct{})
	for range n {
		e.Go(func() {
			defer finished.Done()
			started.Done()
			<-release
		})
	}
	allStarted := make(chan struct{})
	go func() { started.Wait(); close(allStarted) }()
	select {
	case <-allStarted:
	case <-time.After(10 * time.Second):
		t.Fatalf("not all %d runs started while the others waited", n)
	}
	close(release)
	finished.Wait()
	waitFor(t, "the finished goroutines to wait for more", func() bool { return e.idleCount() == maxIdleExecutors })
}

// A goroutine that finished a run takes the next one, and goroutines left
// waiting end after executorLinger.
func TestReusingExecutorReusesThenLetsGoroutinesEnd(t *testing.T) {
	e := newReusingExecutor()
	ran := make(chan struct{})
	e.Go(func() { ran <- struct{}{} })
	<-ran
	waitFor(t, "the goroutine to wait for another run", func() bool { return e.idleCount() == 1 })
	e.Go(func() { ran <- struct{}{} })
	if got := e.idleCount(); got != 0 {
		t.Fatalf("after handing a run to the waiting goroutine, %d wait; want 0", got)
	}
	<-ran
	waitFor(t, "the goroutine to wait again", func() bool { return e.idleCount() == 1 })
	waitFor(t, "the waiting goroutine to end after the linger", func() bool { return e.idleCount() == 0 })
}
