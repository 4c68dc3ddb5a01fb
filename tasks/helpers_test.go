package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// deadline bounds every wait in these tests.
const deadline = 10 * time.Second

// testCtx returns a context that ends at the deadline or with the test.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// cond is a condition the test waits on: whoever changes the state calls
// broadcast, and wait re-checks after every broadcast until the deadline.
type cond struct {
	mu sync.Mutex
	ch chan struct{}
}

func (c *cond) current() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

func (c *cond) broadcast() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
	}
	c.ch = make(chan struct{})
}

func (c *cond) wait(t *testing.T, what string, ok func() bool) {
	t.Helper()
	timeout := time.After(deadline)
	for {
		ch := c.current()
		if ok() {
			return
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("timed out after %v waiting for %s", deadline, what)
		}
	}
}

// cluster is a shared store and bus, standing for a database and a pub/sub
// service, with a shared clock, on which tests start Runtimes that stand
// for server instances.
type cluster struct {
	t     *testing.T
	store *tasks.MemoryStore
	bus   *tasks.MemoryBus
	clock *storetest.Clock
}

func newCluster(t *testing.T) *cluster {
	return &cluster{t: t, store: tasks.NewMemoryStore(), bus: tasks.NewMemoryBus(), clock: storetest.NewClock(time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC))}
}

// advanceKeepingLease moves the clock on by d in steps of at most 20s, less
// than the 30s lease, and after each waits until the owner's heartbeat (its
// observer obs) has renewed the running task's lease from the new time. A
// single jump past the lease would let any instance's sweep find it lapsed
// before the heartbeat ran.
func (c *cluster) advanceKeepingLease(t *testing.T, obs *countingObserver, taskID string, d time.Duration) {
	t.Helper()
	for d > 0 {
		step := min(d, 20*time.Second)
		d -= step
		c.clock.Advance(step)
		want := c.clock.Now().Add(30 * time.Second)
		obs.wait(t, "the lease to be renewed from "+c.clock.Now().Format(time.TimeOnly), func() bool {
			rec, err := c.store.Get(testCtx(t), taskID)
			return err == nil && rec.LeaseExpiresAt.Equal(want)
		})
	}
}

// fastOptions make background work quick in real time: the lease is 30s of
// the fake clock, renewed every 10ms of real time.
func (c *cluster) fastOptions(name string) []tasks.Option {
	return []tasks.Option{
		tasks.WithInstanceID(name),
		tasks.WithClock(c.clock),
		tasks.WithLogger(slog.New(slog.DiscardHandler)),
		tasks.WithLease(30*time.Second, 10*time.Millisecond),
		tasks.WithSweepInterval(5 * time.Millisecond),
		tasks.WithPollInterval(50 * time.Millisecond),
		tasks.WithProgressInterval(10 * time.Millisecond),
	}
}

// instance starts a Runtime on the cluster's store, closed when the test ends.
func (c *cluster) instance(name string, opts ...tasks.Option) *tasks.Runtime {
	return c.instanceOn(c.store, name, opts...)
}

// instanceOn starts a Runtime on the given store and the cluster's bus.
func (c *cluster) instanceOn(store tasks.Store, name string, opts ...tasks.Option) *tasks.Runtime {
	c.t.Helper()
	rt, err := tasks.New(store, c.bus, append(c.fastOptions(name), opts...)...)
	if err != nil {
		c.t.Fatalf("New: %v", err)
	}
	c.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			c.t.Errorf("Close(%s): %v", name, err)
		}
	})
	return rt
}

// raw is shorthand for a json.RawMessage.
func raw(s string) json.RawMessage { return json.RawMessage(s) }

// reportingJob is a handler that reports each message sent on report as
// its progress and finishes when release is closed.
func reportingJob(report <-chan string, release <-chan struct{}) tasks.HandlerFunc {
	return func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		for {
			select {
			case msg := <-report:
				x.Progress(msg)
			case <-release:
				return tasks.Result{Value: raw(`{}`)}, nil
			}
		}
	}
}

// start starts a task or fails the test.
func start(t *testing.T, rt *tasks.Runtime, principal, name string) tasks.Task {
	t.Helper()
	task, err := rt.Start(testCtx(t), tasks.StartRequest{Principal: principal, Method: "tools/call", Name: name, Params: raw(`{"name":"` + name + `"}`)})
	if err != nil {
		t.Fatalf("Start(%s): %v", name, err)
	}
	return task
}

// wait waits for the task to finish or fails the test.
func wait(t *testing.T, rt *tasks.Runtime, principal, id string) tasks.Task {
	t.Helper()
	task, err := rt.Wait(testCtx(t), principal, id)
	if err != nil {
		t.Fatalf("Wait(%s): %v", id, err)
	}
	return task
}

// waitFor watches the task until match accepts a snapshot, and returns it.
func waitFor(t *testing.T, rt *tasks.Runtime, principal, id, what string, match func(tasks.Task) bool) tasks.Task {
	t.Helper()
	for task, err := range rt.Watch(testCtx(t), principal, id) {
		if err != nil {
			t.Fatalf("watching for %s: %v", what, err)
		}
		if match(task) {
			return task
		}
	}
	t.Fatalf("the task finished without reaching %s", what)
	return tasks.Task{}
}

// outstanding returns a matcher for a task waiting on exactly n input requests.
func outstanding(n int) func(tasks.Task) bool {
	return func(task tasks.Task) bool {
		return task.Status == tasks.StatusInputRequired && len(task.InputRequests) == n
	}
}

// recv receives from ch or fails the test at the deadline.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(deadline):
		t.Fatalf("timed out after %v waiting for %s", deadline, what)
	}
	var zero T
	return zero
}

// blockUntilStopped is a handler that reports its context's cause once the
// context ends, and never produces a result of its own.
func blockUntilStopped(started chan<- *tasks.Exec, causes chan<- error) tasks.HandlerFunc {
	return func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		started <- x
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return tasks.Result{}, ctx.Err()
	}
}

// countingObserver counts what a Runtime reports and lets tests wait on it.
type countingObserver struct {
	cond
	mu          sync.Mutex
	transitions map[[2]tasks.Status]int
	calls       map[string]int
	failedCalls []string
	renewed     int
	lost        int
}

func newCountingObserver() *countingObserver {
	return &countingObserver{transitions: map[[2]tasks.Status]int{}, calls: map[string]int{}}
}

func (o *countingObserver) TaskTransition(from, to tasks.Status) {
	o.mu.Lock()
	o.transitions[[2]tasks.Status{from, to}]++
	o.mu.Unlock()
	o.broadcast()
}

func (o *countingObserver) LeaseRenewed() {
	o.mu.Lock()
	o.renewed++
	o.mu.Unlock()
	o.broadcast()
}

func (o *countingObserver) LeaseLost() {
	o.mu.Lock()
	o.lost++
	o.mu.Unlock()
	o.broadcast()
}

func (o *countingObserver) StoreCall(op string, elapsed time.Duration, err error) {
	o.mu.Lock()
	o.calls[op]++
	// Misses, compare-and-swap conflicts, writes to finished tasks and
	// calls cut short by cancellation are part of normal operation.
	if err != nil && !errors.Is(err, tasks.ErrNotFound) && !errors.Is(err, tasks.ErrConflict) &&
		!errors.Is(err, tasks.ErrTerminal) && !errors.Is(err, context.Canceled) {
		o.failedCalls = append(o.failedCalls, op+": "+err.Error())
	}
	o.mu.Unlock()
	o.broadcast()
}

// read runs f under the observer's lock.
func (o *countingObserver) read(f func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f()
}
