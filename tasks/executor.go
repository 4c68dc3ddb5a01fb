package tasks

import (
	"sync"
	"time"
)

// Executor runs task handlers. The default runs each on a goroutine of its
// own, reusing goroutines that finished a run shortly before; an Executor
// can instead queue runs on a bounded pool. A run that waits in a queue
// holds its lease (the instance renews it) and reacts to cancellation as
// soon as it starts.
type Executor interface {
	// Go arranges for run to be called once, on some goroutine.
	Go(run func())
}

// executorLinger is how long a goroutine of the default executor waits for
// another run after finishing one before it ends. A reused goroutine keeps
// the stack it grew, which a fresh one would grow again through the JSON
// encoding of every result.
const executorLinger = time.Second

// maxIdleExecutors bounds the goroutines waiting for a run.
const maxIdleExecutors = 64

// reusingExecutor is the default Executor: every run starts at once, on a
// goroutine that is waiting for one if there is any, else on a new one.
type reusingExecutor struct {
	mu      sync.Mutex
	idle    int         // goroutines waiting on handoff and not yet handed a run
	handoff chan func() // runs for waiting goroutines; never fuller than they are
}

// newReusingExecutor returns an executor with no goroutine yet.
func newReusingExecutor() *reusingExecutor {
	return &reusingExecutor{handoff: make(chan func(), maxIdleExecutors)}
}

// Go runs run on a waiting goroutine, or on a new one.
func (e *reusingExecutor) Go(run func()) {
	e.mu.Lock()
	if e.idle > 0 {
		e.idle--
		e.mu.Unlock()
		e.handoff <- run // buffered beyond the goroutines waiting: never blocks
		return
	}
	e.mu.Unlock()
	go e.work(run)
}

// work calls run, then what it is handed while it waits, until nothing
// comes for executorLinger.
func (e *reusingExecutor) work(run func()) {
	var linger *time.Timer
	for run != nil {
		run()
		run = e.next(&linger)
	}
	if linger != nil {
		linger.Stop()
	}
}

// next waits for a run handed to this goroutine; nil means it should end.
// *linger is the goroutine's timer, made on first use.
func (e *reusingExecutor) next(linger **time.Timer) func() {
	e.mu.Lock()
	if e.idle >= maxIdleExecutors {
		e.mu.Unlock()
		return nil
	}
	e.idle++
	e.mu.Unlock()
	if *linger == nil {
		*linger = time.NewTimer(executorLinger)
	} else {
		(*linger).Reset(executorLinger)
	}
	select {
	case run := <-e.handoff:
		return run
	case <-(*linger).C:
	}
	e.mu.Lock()
	if e.idle > 0 {
		// Still waiting unclaimed: stop waiting.
		e.idle--
		e.mu.Unlock()
		return nil
	}
	// Every waiting goroutine has been claimed, this one included: a run is
	// on its way (or there) in handoff.
	e.mu.Unlock()
	return <-e.handoff
}
