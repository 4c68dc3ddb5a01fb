package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// lapse is more than the 30s lease the cluster's instances hold.
const lapse = 31 * time.Second

func TestLostWorkerFailsATaskNotSafeToRepeat(t *testing.T) {
	c := newCluster(t)
	linkA := &storetest.CutStore{Store: c.store}
	a, b := c.instanceOn(linkA, "a"), c.instance("b")
	started, causes := make(chan *tasks.Exec, 2), make(chan error, 2)
	for _, rt := range []*tasks.Runtime{a, b} {
		rt.Register("tools/call", "job", blockUntilStopped(started, causes), tasks.Policy{})
	}
	task := start(t, a, "alice", "job")
	recv(t, started, "the handler to start on a")

	linkA.Cut.Store(true) // a crashes, or is cut off
	c.clock.Advance(lapse)

	final := wait(t, b, "alice", task.ID)
	if final.Status != tasks.StatusFailed || final.Error == nil || final.Error.Code != jsonrpc.CodeInternalError ||
		!strings.Contains(final.StatusMessage, "instance a") || !strings.Contains(final.StatusMessage, "was lost") ||
		!strings.Contains(final.StatusMessage, "not marked safe to repeat") {
		t.Fatalf("the lost task ended %s with %q (error %+v), want failed saying its worker a was lost", final.Status, final.StatusMessage, final.Error)
	}
	if cause := recv(t, causes, "a to stop its handler"); !errors.Is(cause, tasks.ErrLeaseLost) {
		t.Fatalf("a's handler stopped with %v, want ErrLeaseLost", cause)
	}
	select {
	case <-started:
		t.Fatalf("a task not safe to repeat was run again")
	default:
	}
}

// TestLostWorkerRerunReplaysRecordedAnswers also checks that a question is
// the same whatever trace asks it: each run's first question carries the
// trace context of its own run in _meta.
func TestLostWorkerRerunReplaysRecordedAnswers(t *testing.T) {
	c := newCluster(t)
	linkA := &storetest.CutStore{Store: c.store}
	a, b := c.instanceOn(linkA, "a"), c.instance("b")
	runs, stopped := make(chan int, 2), make(chan error, 2)
	handler := func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		runs <- x.Run()
		traced := raw(fmt.Sprintf(`{"method":"elicitation/create","params":{"message":"Your name?","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e473%d-00f067aa0ba902b7-01","tracestate":"run=%d"}}}`, x.Run(), x.Run()))
		name, err := x.Ask(ctx, traced)
		if err != nil {
			stopped <- err
			return tasks.Result{}, err
		}
		confirm, err := x.Ask(ctx, askConfirm)
		if err != nil {
			stopped <- err
			return tasks.Result{}, err
		}
		return tasks.Result{Value: raw(fmt.Sprintf(`{"run":%d,"answers":[%s,%s]}`, x.Run(), name, confirm))}, nil
	}
	for _, rt := range []*tasks.Runtime{a, b} {
		rt.Register("tools/call", "confirm_delete", handler, tasks.Policy{Rerun: true})
	}
	task := start(t, a, "alice", "confirm_delete")
	if run := recv(t, runs, "the first run"); run != 1 {
		t.Fatalf("the first run is numbered %d", run)
	}
	waitFor(t, b, "alice", task.ID, "the first question", outstanding(1))
	if err := b.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{"input-1": raw(`"Alice"`)}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	waitFor(t, b, "alice", task.ID, "the second question", func(x tasks.Task) bool {
		return len(x.InputRequests) == 1 && x.InputRequests[0].Key == "input-2"
	})

	linkA.Cut.Store(true)
	c.clock.Advance(lapse)
	if run := recv(t, runs, "the re-run on b"); run != 2 {
		t.Fatalf("the re-run is numbered %d, want 2", run)
	}
	if err := recv(t, stopped, "a's run to stop"); !errors.Is(err, tasks.ErrLeaseLost) {
		t.Fatalf("a's Ask ended with %v, want ErrLeaseLost", err)
	}
	if err := b.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{"input-2": raw(`"yes"`)}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	final := wait(t, b, "alice", task.ID)
	if final.Status != tasks.StatusCompleted || string(final.Result) != `{"run":2,"answers":["Alice","yes"]}` {
		t.Fatalf("the re-run ended %s with %s, want completed by run 2 with both answers", final.Status, final.Result)
	}
	rec, err := c.store.Get(testCtx(t), task.ID)
	if err != nil {
		t.Fatalf("store Get: %v", err)
	}
	if len(rec.Inputs) != 2 || rec.Runs != 2 || rec.Owner != "b" {
		t.Fatalf("the store holds %d input requests, %d runs, owner %q; want 2 (none asked again), 2, b", len(rec.Inputs), rec.Runs, rec.Owner)
	}
}

func TestRerunGivesUpAfterMaxRuns(t *testing.T) {
	c := newCluster(t)
	links := map[string]*storetest.CutStore{}
	instances := map[string]*tasks.Runtime{}
	started, causes := make(chan string, 3), make(chan error, 3)
	for _, name := range []string{"a", "b", "c"} {
		links[name] = &storetest.CutStore{Store: c.store}
		rt := c.instanceOn(links[name], name)
		instances[name] = rt
		rt.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
			started <- name
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return tasks.Result{}, ctx.Err()
		}, tasks.Policy{Rerun: true, MaxRuns: 2})
	}
	task := start(t, instances["a"], "alice", "job")
	first := recv(t, started, "the first run")
	links[first].Cut.Store(true)
	c.clock.Advance(lapse)
	second := recv(t, started, "the second run")
	links[second].Cut.Store(true)
	c.clock.Advance(lapse)
	var survivor string
	for name := range instances {
		if name != first && name != second {
			survivor = name
		}
	}
	final := wait(t, instances[survivor], "alice", task.ID)
	if final.Status != tasks.StatusFailed || !strings.Contains(final.StatusMessage, "already ran 2 times") ||
		!strings.Contains(final.StatusMessage, "instance "+second) {
		t.Fatalf("after losing both runs the task is %s: %q; want failed saying it ran 2 times", final.Status, final.StatusMessage)
	}
	for range 2 {
		if cause := recv(t, causes, "a lost run to stop"); !errors.Is(cause, tasks.ErrLeaseLost) {
			t.Fatalf("a lost run stopped with %v, want ErrLeaseLost", cause)
		}
	}
}

func TestHeartbeatKeepsTheLease(t *testing.T) {
	c := newCluster(t)
	obsA, obsB := newCountingObserver(), newCountingObserver()
	a := c.instance("a", tasks.WithObserver(obsA))
	c.instance("b", tasks.WithObserver(obsB))
	started, causes := make(chan *tasks.Exec, 1), make(chan error, 1)
	a.Register("tools/call", "job", blockUntilStopped(started, causes), tasks.Policy{})
	task := start(t, a, "alice", "job")
	recv(t, started, "the handler to start")

	c.advanceKeepingLease(t, obsA, task.ID, 60*time.Second) // twice the lease
	var sweeps int
	obsB.read(func() { sweeps = obsB.calls["LeaseExpired"] })
	obsB.wait(t, "b to sweep for lapsed leases twice more", func() (done bool) {
		obsB.read(func() { done = obsB.calls["LeaseExpired"] >= sweeps+2 })
		return done
	})
	rec, err := c.store.Get(testCtx(t), task.ID)
	if err != nil || rec.Owner != "a" || rec.Runs != 1 || rec.Status != tasks.StatusWorking {
		t.Fatalf("a renewing task is owned by %q after %d runs, %s (%v); want a, 1, working", rec.Owner, rec.Runs, rec.Status, err)
	}
	select {
	case cause := <-causes:
		t.Fatalf("the handler was stopped (%v) although its lease was renewed", cause)
	default:
	}
	obsA.read(func() {
		if obsA.renewed < 3 || obsA.lost != 0 {
			t.Errorf("a reported %d renewals and %d losses, want ≥ 3 and 0", obsA.renewed, obsA.lost)
		}
		// Observed, the memory store still renews in batches.
		if obsA.calls["RenewLeases"] < 3 {
			t.Errorf("a renewed its lease with %d RenewLeases calls (and %d Updates), want ≥ 3", obsA.calls["RenewLeases"], obsA.calls["Update"])
		}
	})
	if _, err := a.Cancel(testCtx(t), "alice", task.ID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
}

func TestCloseReleasesLeasesForImmediateRecovery(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	runs, causes := make(chan int, 2), make(chan error, 1)
	handler := func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		runs <- x.Run()
		if x.Run() == 1 {
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return tasks.Result{}, ctx.Err()
		}
		return tasks.Result{Value: raw(fmt.Sprintf(`{"run":%d}`, x.Run()))}, nil
	}
	for _, rt := range []*tasks.Runtime{a, b} {
		rt.Register("tools/call", "job", handler, tasks.Policy{Rerun: true})
	}
	task := start(t, a, "alice", "job")
	recv(t, runs, "the first run")

	expired, cancel := context.WithCancel(context.Background())
	cancel()
	err := a.Close(expired)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "1 task handlers") {
		t.Fatalf("Close at its deadline with a running handler: got %v", err)
	}
	if cause := recv(t, causes, "a's handler to stop"); !errors.Is(cause, tasks.ErrClosed) {
		t.Fatalf("a's handler stopped with %v, want ErrClosed", cause)
	}
	// No clock advance: the released lease has lapsed already.
	if run := recv(t, runs, "b to run the task again"); run != 2 {
		t.Fatalf("b's run is numbered %d, want 2", run)
	}
	if final := wait(t, b, "alice", task.ID); final.Status != tasks.StatusCompleted || string(final.Result) != `{"run":2}` {
		t.Fatalf("the recovered task ended %s with %s", final.Status, final.Result)
	}
	if _, err := a.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job"}); !errors.Is(err, tasks.ErrClosed) {
		t.Fatalf("Start on a closed runtime: got %v, want ErrClosed", err)
	}
}

// lostTask is an unfinished task of alice's whose owner "gone" died: its
// lease lapsed at lapsedAt.
func lostTask(id, name string, policy tasks.Policy, lapsedAt time.Time) *tasks.Record {
	created := lapsedAt.Add(-time.Hour)
	return &tasks.Record{
		ID: id, Principal: "alice", Method: "tools/call", Name: name, Params: raw(`{"name":"` + name + `"}`),
		Policy: policy, Status: tasks.StatusWorking, CreatedAt: created, UpdatedAt: created,
		PollInterval: time.Second, Owner: "gone", LeaseExpiresAt: lapsedAt, Runs: 1,
	}
}

// TestLostTasksWaitingForTheirHandlerDoNotHoldUpTheOthers checks that more
// than a sweep's batch of lost tasks this instance cannot run (safe to
// repeat, but it lacks their handler) are set aside for an instance that
// has it, instead of filling every batch of lapsed leases the sweep lists,
// so that the lost task behind them is recovered; and that the instance
// with the handler takes them over when it comes.
func TestLostTasksWaitingForTheirHandlerDoNotHoldUpTheOthers(t *testing.T) {
	c := newCluster(t)
	ctx := testCtx(t)
	now := c.clock.Now()
	const waiting = 150 // more than the 100 lapsed leases one store call lists
	for i := range waiting {
		rec := lostTask(fmt.Sprintf("waiting-%03d", i), "elsewhere", tasks.Policy{Rerun: true}, now.Add(-time.Duration(waiting-i)*time.Second))
		if err := c.store.Create(ctx, rec, tasks.Quota{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.store.Create(ctx, lostTask("behind", "job", tasks.Policy{}, now.Add(-time.Millisecond)), tasks.Quota{}); err != nil {
		t.Fatal(err)
	}
	if first, err := c.store.LeaseExpired(ctx, now, 100); err != nil || slices.Contains(first, "behind") {
		t.Fatalf("setup: the first batch of lapsed leases is %d IDs (%v) and holds the task behind; the test needs it past the batch", len(first), err)
	}

	linkB, obs := &storetest.CutStore{Store: c.store}, newCountingObserver()
	b := c.instanceOn(linkB, "b", tasks.WithObserver(obs)) // has no handler for "elsewhere"
	if final := wait(t, b, "alice", "behind"); final.Status != tasks.StatusFailed || !strings.Contains(final.StatusMessage, "instance gone") {
		t.Fatalf("the lost task behind the waiting ones ended %s: %q; want failed saying its worker gone was lost", final.Status, final.StatusMessage)
	}
	setAside := func(rec *tasks.Record) bool {
		return rec.Status == tasks.StatusWorking && rec.Owner == "gone" && rec.LeaseExpiresAt.After(now) && rec.Runs == 1
	}
	obs.wait(t, "every waiting task to be set aside", func() bool {
		for i := range waiting {
			if rec, err := c.store.Get(ctx, fmt.Sprintf("waiting-%03d", i)); err != nil || !setAside(rec) {
				return false
			}
		}
		return true
	})

	linkB.Cut.Store(true) // b leaves; d, which has the handler, comes
	d := c.instance("d")
	d.Register("tools/call", "elsewhere", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: raw(`{"content":[]}`)}, nil
	}, tasks.Policy{Rerun: true})
	c.clock.Advance(lapse)
	for i := range waiting {
		if final := wait(t, d, "alice", fmt.Sprintf("waiting-%03d", i)); final.Status != tasks.StatusCompleted {
			t.Fatalf("waiting task %s ended %s: %q; want it run again and completed by d", final.ID, final.Status, final.StatusMessage)
		}
	}
}
