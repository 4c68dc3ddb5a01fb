package tasks_test

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// The record cache keeps its contract on the memory backend shared by two
// Runtimes, and on a RelayBus, whose signals travel as messages.
func TestMemoryRecordCacheContract(t *testing.T) {
	storetest.TestRecordCache(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
		return func() (tasks.Store, tasks.Bus) { return store, bus }
	})
}

func TestRelayBusRecordCacheContract(t *testing.T) {
	storetest.TestRecordCache(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		store, c := tasks.NewMemoryStore(), new(channel)
		return func() (tasks.Store, tasks.Bus) { return store, c.join() }
	})
}

// racingStore runs a function right after the first store read of a task
// that it is armed for, before the read's answer reaches the Runtime: a
// change landing while the read is on its way back.
type racingStore struct {
	tasks.Store
	armed func()
}

func (s *racingStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	rec, err := s.Store.Get(ctx, id)
	if f := s.armed; f != nil {
		s.armed = nil
		f()
	}
	return rec, err
}

// A change signalled while the cache's read of the task was on its way
// back leaves the older copy untrusted: the next read goes to the store and
// sees the change.
func TestCacheDoesNotTrustACopyReadAcrossAChange(t *testing.T) {
	c := newCluster(t)
	writer := c.instance("writer")
	release := make(chan struct{})
	defer close(release)
	returning(writer, "job", release, tasks.Result{Value: raw(`{}`)}, nil)
	task := start(t, writer, "alice", "job")

	racing := &racingStore{Store: c.store}
	counted := &storetest.CountingStore{Store: racing}
	reader := c.instanceOn(counted, "reader", tasks.WithRecordCache(tasks.DefaultRecordCache))
	ctx := testCtx(t)
	racing.armed = func() {
		if _, err := writer.Cancel(ctx, "alice", task.ID); err != nil {
			t.Errorf("Cancel: %v", err)
		}
	}
	first, err := reader.Get(ctx, "alice", task.ID)
	if err != nil || first.Status != tasks.StatusWorking {
		t.Fatalf("first Get: %s, %v; want working, read before the cancel", first.Status, err)
	}
	before := counted.Ops().Get
	second, err := reader.Get(ctx, "alice", task.ID)
	if err != nil || second.Status != tasks.StatusCancelled {
		t.Fatalf("second Get: %s, %v; want cancelled", second.Status, err)
	}
	if got := counted.Ops().Get - before; got != 1 {
		t.Errorf("the second Get read the store %d times, want 1", got)
	}
}

// A change this instance writes itself is what it reads next, from memory.
func TestCacheReadsItsOwnWritesWithoutTheStore(t *testing.T) {
	c := newCluster(t)
	counted := &storetest.CountingStore{Store: c.store}
	rt := c.instanceOn(counted, "a", tasks.WithRecordCache(tasks.DefaultRecordCache))
	release := make(chan struct{})
	defer close(release)
	returning(rt, "job", release, tasks.Result{Value: raw(`{}`)}, nil)
	task := start(t, rt, "alice", "job")
	ctx := testCtx(t)
	if _, err := rt.Cancel(ctx, "alice", task.ID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	before := counted.Ops()
	for range 3 {
		got, err := rt.Get(ctx, "alice", task.ID)
		if err != nil || got.Status != tasks.StatusCancelled {
			t.Fatalf("Get after Cancel: %s, %v; want cancelled", got.Status, err)
		}
	}
	if got := counted.Ops().Sub(before); got.Total() != 0 {
		t.Errorf("reading the task this instance cancelled cost %s, want no store call", got)
	}
}

// A task's life (created, run to completion, read, its result waited for)
// costs two store calls with the record cache: the Create and the Update
// that completes it. Every read is answered from memory.
func TestTaskLifeCostsTwoStoreCalls(t *testing.T) {
	c := newCluster(t)
	counted := &storetest.CountingStore{Store: c.store}
	// The default heartbeat: a lease renewal is a store call of its own,
	// not of the life.
	rt := c.instanceOn(counted, "a", tasks.WithRecordCache(tasks.DefaultRecordCache), tasks.WithLease(tasks.DefaultLease, tasks.DefaultHeartbeat))
	returning(rt, "job", nil, tasks.Result{Value: raw(`{"content":[]}`)}, nil)
	ctx := testCtx(t)
	for range 20 {
		before := counted.Ops()
		task := start(t, rt, "alice", "job")
		if _, err := rt.Get(ctx, "alice", task.ID); err != nil {
			t.Fatalf("Get: %v", err)
		}
		if done := wait(t, rt, "alice", task.ID); done.Status != tasks.StatusCompleted {
			t.Fatalf("the task ended %s, want completed", done.Status)
		}
		if _, err := rt.Get(ctx, "alice", task.ID); err != nil {
			t.Fatalf("Get: %v", err)
		}
		ops := counted.Ops().Sub(before)
		ops.Sweep = 0 // the background sweeps are not the task's
		if want := (storetest.StoreOps{Create: 1, Update: 1}); ops != want {
			t.Fatalf("a task's life cost %s, want %s", ops, want)
		}
	}
}
