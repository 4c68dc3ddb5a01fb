package storetest

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// TestRecordCache checks the Runtime's record cache on the driver: two
// instances (two Runtimes, each on its own handles from instance, as two
// processes would be) share the backing service. Reading a task that has
// not changed costs no store read on either instance; a change made on one
// instance reaches the other's cache through the Bus, after which that
// instance never answers with the older state; and a finished task is read
// from memory on both.
func TestRecordCache(t *testing.T, open func(t *testing.T) (instance func() (tasks.Store, tasks.Bus))) {
	instance := open(t)
	storeA, busA := instance()
	storeB, busB := instance()
	countedA, countedB := &CountingStore{Store: storeA}, &CountingStore{Store: storeB}
	a := cacheInstance(t, countedA, busA, "a")
	b := cacheInstance(t, countedB, busB, "b")
	progress, release := make(chan string), make(chan struct{})
	a.Register("tools/call", "cached", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		for {
			select {
			case msg := <-progress:
				x.Progress(msg)
			case <-release:
				return tasks.Result{Value: json.RawMessage(`{"content":[]}`)}, nil
			case <-ctx.Done():
				return tasks.Result{}, context.Cause(ctx)
			}
		}
	}, tasks.Policy{})
	a.Register("tools/call", "blocked", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-ctx.Done()
		return tasks.Result{}, context.Cause(ctx)
	}, tasks.Policy{})
	ctx := testCtx(t)
	task := startTask(t, a, "cached")

	reads := func(s *CountingStore, what string, want int64, do func()) {
		t.Helper()
		before := s.Ops().Get
		do()
		if got := s.Ops().Get - before; got > want {
			t.Errorf("%s read the store %d times, want at most %d", what, got, want)
		}
	}
	getN := func(rt *tasks.Runtime, n int, check func(tasks.Task)) func() {
		return func() {
			for range n {
				got, err := rt.Get(ctx, "alice", task.ID)
				if err != nil {
					t.Fatalf("Get: %v", err)
				}
				check(got)
			}
		}
	}
	working := func(got tasks.Task) {
		if got.Status != tasks.StatusWorking {
			t.Fatalf("Get says %s, want working", got.Status)
		}
	}
	reads(countedA, "5 reads of the task on the instance that created it", 0, getN(a, 5, working))
	reads(countedB, "5 reads of the unchanged task on another instance", 1, getN(b, 5, working))

	progress <- "half way"
	watchFor(t, b, task.ID, "the progress message on the other instance", func(got tasks.Task) bool { return got.StatusMessage == "half way" })
	// At most one read: the instance's watcher may read the store before
	// its cache hears the signal that woke it.
	reads(countedB, "5 reads of the task after its change was seen", 1, getN(b, 5, func(got tasks.Task) {
		if got.StatusMessage != "half way" {
			t.Fatalf("after the other instance showed %q, Get says %q", "half way", got.StatusMessage)
		}
	}))

	close(release)
	done, err := b.Wait(ctx, "alice", task.ID)
	if err != nil || done.Status != tasks.StatusCompleted {
		t.Fatalf("Wait on the other instance: %s, %v; want completed", done.Status, err)
	}
	completed := func(got tasks.Task) {
		if got.Status != tasks.StatusCompleted {
			t.Fatalf("after the task was seen completed, Get says %s", got.Status)
		}
	}
	reads(countedB, "5 reads of the finished task on the other instance", 0, getN(b, 5, completed))
	reads(countedA, "5 reads of the finished task on the instance that ran it", 0, getN(a, 5, completed))

	// A cancel on the other instance reaches the first one's cache.
	second := startTask(t, a, "blocked")
	if _, err := a.Get(ctx, "alice", second.ID); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if _, err := b.Cancel(ctx, "alice", second.ID); err != nil {
		t.Fatalf("Cancel on the other instance: %v", err)
	}
	watchFor(t, a, second.ID, "the cancel on the instance that created the task", func(got tasks.Task) bool { return got.Status == tasks.StatusCancelled })
	if got, err := a.Get(ctx, "alice", second.ID); err != nil || got.Status != tasks.StatusCancelled {
		t.Fatalf("after its watcher saw the cancel, Get says %s, %v", got.Status, err)
	}
}

// cacheInstance starts a Runtime with its record cache on, closed when the
// test ends.
func cacheInstance(t *testing.T, store tasks.Store, bus tasks.Bus, name string) *tasks.Runtime {
	t.Helper()
	rt, err := tasks.New(store, bus, tasks.WithInstanceID(name), tasks.WithLogger(slog.New(slog.DiscardHandler)),
		tasks.WithRecordCache(tasks.DefaultRecordCache), tasks.WithProgressInterval(time.Millisecond))
	if err != nil {
		t.Fatalf("tasks.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rt.Close(ctx)
	})
	return rt
}
