package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// TestCluster runs the multi-instance contract: several Runtimes, each on
// its own Store and Bus over one backing service, stand for server
// instances. A cancel on one stops the handler on another, an answer on one
// resumes the handler on another, and when the instance running a task is
// lost, another fails it or runs it again, as its policy says, within the
// lease. Expiry keeps pace: after a burst of short tasks, the next sweep
// leaves none past its TTL. For each subtest open returns a fresh backing service, from which
// instance makes a Store and a Bus per instance.
func TestCluster(t *testing.T, open func(t *testing.T) (instance func() (tasks.Store, tasks.Bus))) {
	tests := []struct {
		name string
		fn   func(*testing.T, *cluster)
	}{
		{"CancelOnOneInstanceStopsTheHandlerOnAnother", testCancelOnOneInstanceStopsTheHandlerOnAnother},
		{"AnswerOnOneInstanceResumesAskOnAnother", testAnswerOnOneInstanceResumesAskOnAnother},
		{"LostInstanceTaskFailsWithinTheLease", testLostInstanceTaskFailsWithinTheLease},
		{"LostInstanceTaskRunsAgainWithItsAnswers", testLostInstanceTaskRunsAgainWithItsAnswers},
		{"ExpiryKeepsPace", testExpiryKeepsPace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, &cluster{t: t, instance: open(t), clock: NewClock(time.Now().Round(0))})
		})
	}
}

// cluster is one backing service and clock shared by the instances of a
// test.
type cluster struct {
	t        *testing.T
	instance func() (tasks.Store, tasks.Bus)
	clock    *Clock
}

// slowBackground makes the heartbeat and the watchers' polls a minute apart:
// whatever crosses instances within a test's deadline came over the Bus.
func slowBackground() []tasks.Option {
	return []tasks.Option{tasks.WithLease(2*time.Minute, time.Minute), tasks.WithPollInterval(time.Minute)}
}

// fastLeases renews every 10ms and sweeps every 5ms of real time, with a
// lease of 30s of the fake clock.
func fastLeases() []tasks.Option {
	return []tasks.Option{tasks.WithLease(30*time.Second, 10*time.Millisecond), tasks.WithSweepInterval(5 * time.Millisecond),
		tasks.WithPollInterval(50 * time.Millisecond)}
}

// start starts a Runtime named name on its own Store and Bus; wrap, if
// not nil, stands between the Runtime and the Store.
func (c *cluster) start(name string, wrap func(tasks.Store) tasks.Store, opts ...tasks.Option) *tasks.Runtime {
	c.t.Helper()
	store, bus := c.instance()
	if wrap != nil {
		store = wrap(store)
	}
	opts = append([]tasks.Option{tasks.WithInstanceID(name), tasks.WithClock(c.clock),
		tasks.WithLogger(slog.New(slog.DiscardHandler)), tasks.WithSweepInterval(5 * time.Millisecond)}, opts...)
	rt, err := tasks.New(store, bus, opts...)
	if err != nil {
		c.t.Fatalf("tasks.New: %v", err)
	}
	c.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), deliveryDeadline)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			c.t.Errorf("closing %s: %v", name, err)
		}
	})
	return rt
}

// testCtx returns a context that ends at the deadline or with the test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), deliveryDeadline)
	t.Cleanup(cancel)
	return ctx
}

// blocking is a handler that reports its instance when it starts and its
// context's cause when it is stopped.
func blocking(instance string, started chan<- string, causes chan<- error) tasks.HandlerFunc {
	return func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		started <- instance
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return tasks.Result{}, ctx.Err()
	}
}

func startTask(t *testing.T, rt *tasks.Runtime, name string) tasks.Task {
	t.Helper()
	task, err := rt.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: name,
		Params: json.RawMessage(`{"name":"` + name + `"}`)})
	if err != nil {
		t.Fatalf("Start(%s): %v", name, err)
	}
	return task
}

// watchFor watches the task on rt until match accepts it.
func watchFor(t *testing.T, rt *tasks.Runtime, id, what string, match func(tasks.Task) bool) tasks.Task {
	t.Helper()
	for task, err := range rt.Watch(testCtx(t), "alice", id) {
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

func testCancelOnOneInstanceStopsTheHandlerOnAnother(t *testing.T, c *cluster) {
	a, b := c.start("a", nil, slowBackground()...), c.start("b", nil, slowBackground()...)
	started, causes := make(chan string, 1), make(chan error, 1)
	a.Register("tools/call", "block", blocking("a", started, causes), tasks.Policy{})
	b.Register("tools/call", "block", blocking("b", started, causes), tasks.Policy{})

	task := startTask(t, a, "block")
	if where := recv(t, started, "the handler to start"); where != "a" {
		t.Fatalf("the task started on %s, want a", where)
	}
	seen, err := b.Get(testCtx(t), "alice", task.ID)
	if err != nil || seen.Status != tasks.StatusWorking || !seen.CreatedAt.Equal(task.CreatedAt) {
		t.Fatalf("instance b reads the task as %+v, %v", seen, err)
	}
	if _, err := b.Cancel(testCtx(t), "alice", task.ID); err != nil {
		t.Fatalf("Cancel on b: %v", err)
	}
	if cause := recv(t, causes, "the handler on a to be stopped"); !errors.Is(cause, tasks.ErrCancelled) {
		t.Fatalf("the handler on a stopped with %v, want ErrCancelled", cause)
	}
	if got, err := a.Get(testCtx(t), "alice", task.ID); err != nil || got.Status != tasks.StatusCancelled {
		t.Fatalf("instance a reads the task as %s, %v; want cancelled", got.Status, err)
	}
}

func testAnswerOnOneInstanceResumesAskOnAnother(t *testing.T, c *cluster) {
	a, b := c.start("a", nil, slowBackground()...), c.start("b", nil, slowBackground()...)
	request := json.RawMessage(`{"method":"elicitation/create","params":{"message":"Proceed?"}}`)
	ask := func(instance string) tasks.HandlerFunc {
		return func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
			resp, err := x.Ask(ctx, request)
			if err != nil {
				return tasks.Result{}, err
			}
			return tasks.Result{Value: json.RawMessage(`{"instance":"` + instance + `","answer":` + string(resp) + `}`)}, nil
		}
	}
	a.Register("tools/call", "ask", ask("a"), tasks.Policy{})
	b.Register("tools/call", "ask", ask("b"), tasks.Policy{})

	task := startTask(t, a, "ask")
	waiting := watchFor(t, b, task.ID, "the input request", func(t tasks.Task) bool {
		return t.Status == tasks.StatusInputRequired && len(t.InputRequests) == 1
	})
	if string(waiting.InputRequests[0].Request) != string(request) {
		t.Fatalf("instance b sees the request %s, want %s", waiting.InputRequests[0].Request, request)
	}
	answer := json.RawMessage(`{"action":"accept","content":{"proceed":true}}`)
	if err := b.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{waiting.InputRequests[0].Key: answer}); err != nil {
		t.Fatalf("Answer on b: %v", err)
	}
	done, err := b.Wait(testCtx(t), "alice", task.ID)
	if err != nil {
		t.Fatalf("Wait on b: %v", err)
	}
	want := `{"instance":"a","answer":` + string(answer) + `}`
	if done.Status != tasks.StatusCompleted || string(done.Result) != want {
		t.Fatalf("the task ended %s with %s, want completed with %s", done.Status, done.Result, want)
	}
}

// sweepCounter counts an instance's lease sweeps.
type sweepCounter struct {
	tasks.NopObserver
	sweeps chan struct{}
}

func (o *sweepCounter) StoreCall(op string, _ time.Duration, _ error) {
	if op == "LeaseExpired" {
		select {
		case o.sweeps <- struct{}{}:
		default:
		}
	}
}

// awaitSweeps waits until the instance has swept for lapsed leases n more times.
func (o *sweepCounter) awaitSweeps(t *testing.T, n int) {
	t.Helper()
	for range n {
		recv(t, o.sweeps, "a lease sweep")
	}
}

// loseInstanceA starts a on a store it can be cut from and b with a sweep
// counter, runs the handler on a, then cuts a off and moves the clock to
// just before the lease lapses.
func loseInstanceA(t *testing.T, c *cluster, register func(rt *tasks.Runtime, instance string), name string) (a, b *tasks.Runtime, link *CutStore, sweeps *sweepCounter, task tasks.Task) {
	link = &CutStore{}
	a = c.start("a", func(s tasks.Store) tasks.Store { link.Store = s; return link }, fastLeases()...)
	sweeps = &sweepCounter{sweeps: make(chan struct{}, 1)}
	b = c.start("b", nil, append(fastLeases(), tasks.WithObserver(sweeps))...)
	register(a, "a")
	register(b, "b")
	task = startTask(t, a, name)
	return a, b, link, sweeps, task
}

func testLostInstanceTaskFailsWithinTheLease(t *testing.T, c *cluster) {
	started, causes := make(chan string, 2), make(chan error, 2)
	_, b, link, sweeps, task := loseInstanceA(t, c, func(rt *tasks.Runtime, instance string) {
		rt.Register("tools/call", "block", blocking(instance, started, causes), tasks.Policy{})
	}, "block")
	recv(t, started, "the handler to start on a")

	link.Cut.Store(true) // a crashes, as far as the cluster can tell
	c.clock.Advance(30*time.Second - time.Millisecond)
	sweeps.awaitSweeps(t, 3)
	if got, err := b.Get(testCtx(t), "alice", task.ID); err != nil || got.Status != tasks.StatusWorking {
		t.Fatalf("before the lease lapsed, b already has the task %s (%v)", got.Status, err)
	}
	c.clock.Advance(time.Millisecond)
	failed := watchFor(t, b, task.ID, "the task to fail", func(t tasks.Task) bool { return t.Terminal() })
	if failed.Status != tasks.StatusFailed || !strings.Contains(failed.StatusMessage, "(instance a) was lost") ||
		failed.Error == nil {
		t.Fatalf("after a was lost the task is %s: %q (error %v); want failed, saying instance a was lost",
			failed.Status, failed.StatusMessage, failed.Error)
	}
	// a itself notices its lease lapsed, and stops its handler.
	if cause := recv(t, causes, "the handler on a to be stopped"); !errors.Is(cause, tasks.ErrLeaseLost) {
		t.Fatalf("the handler on a stopped with %v, want ErrLeaseLost", cause)
	}
	select {
	case where := <-started:
		t.Fatalf("the task was started again on %s, but its policy says fail", where)
	default:
	}
}

func testLostInstanceTaskRunsAgainWithItsAnswers(t *testing.T, c *cluster) {
	request := json.RawMessage(`{"method":"elicitation/create","params":{"message":"Which?"}}`)
	answered, causes := make(chan struct{}, 1), make(chan error, 1)
	rerun := func(rt *tasks.Runtime, instance string) {
		rt.Register("tools/call", "rerun", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
			resp, err := x.Ask(ctx, request)
			if err != nil {
				return tasks.Result{}, err
			}
			if x.Run() == 1 {
				answered <- struct{}{} // then hang, as a crashed worker would
				<-ctx.Done()
				causes <- context.Cause(ctx)
				return tasks.Result{}, ctx.Err()
			}
			return tasks.Result{Value: json.RawMessage(`{"instance":"` + instance + `","run":` +
				string(rune('0'+x.Run())) + `,"answer":` + string(resp) + `}`)}, nil
		}, tasks.Policy{Rerun: true, MaxRuns: 2})
	}
	_, b, link, sweeps, task := loseInstanceA(t, c, rerun, "rerun")
	waiting := watchFor(t, b, task.ID, "the input request", func(t tasks.Task) bool { return len(t.InputRequests) == 1 })
	answer := json.RawMessage(`{"action":"accept","content":{"choice":"left"}}`)
	if err := b.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{waiting.InputRequests[0].Key: answer}); err != nil {
		t.Fatalf("Answer on b: %v", err)
	}
	recv(t, answered, "the answer to reach the handler on a")

	link.Cut.Store(true)
	sweeps.awaitSweeps(t, 3)
	c.clock.Advance(30 * time.Second)
	done := watchFor(t, b, task.ID, "the task to finish", func(t tasks.Task) bool { return t.Terminal() })
	want := `{"instance":"b","run":2,"answer":` + string(answer) + `}`
	if done.Status != tasks.StatusCompleted || string(done.Result) != want {
		t.Fatalf("the re-run task ended %s with %s (%q), want completed with %s", done.Status, done.Result, done.StatusMessage, want)
	}
	if cause := recv(t, causes, "the handler on a to be stopped"); !errors.Is(cause, tasks.ErrLeaseLost) {
		t.Fatalf("the handler on a stopped with %v, want ErrLeaseLost", cause)
	}
}

// recv receives from ch or fails the test at the deadline.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(deliveryDeadline):
		t.Fatalf("timed out after %v waiting for %s", deliveryDeadline, what)
	}
	var zero T
	return zero
}
