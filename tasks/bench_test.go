package tasks_test

import (
	"context"
	"crypto/rand"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// benchRuntime returns a Runtime on a fresh memory store with an instant
// handler named "echo".
func benchRuntime(b *testing.B, store *tasks.MemoryStore) *tasks.Runtime {
	b.Helper()
	rt, err := tasks.New(store, tasks.NewMemoryBus(), tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatalf("New: %v", err)
	}
	b.Cleanup(func() { rt.Close(context.Background()) })
	rt.Register("tools/call", "echo", func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: raw(`{"content":[{"type":"text","text":"ok"}]}`)}, nil
	}, tasks.Policy{})
	return rt
}

var echoRequest = tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "echo", Params: raw(`{"name":"echo","arguments":{}}`)}

// BenchmarkStartAndComplete measures a task's whole life: created, run,
// completed, and waited for.
func BenchmarkStartAndComplete(b *testing.B) {
	rt := benchRuntime(b, tasks.NewMemoryStore())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		task, err := rt.Start(ctx, echoRequest)
		if err != nil {
			b.Fatalf("Start: %v", err)
		}
		if done, err := rt.Wait(ctx, "alice", task.ID); err != nil || done.Status != tasks.StatusCompleted {
			b.Fatalf("Wait: %s, %v", done.Status, err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}

// BenchmarkStartAndCompleteParallel is BenchmarkStartAndComplete from many
// goroutines at once.
func BenchmarkStartAndCompleteParallel(b *testing.B) {
	rt := benchRuntime(b, tasks.NewMemoryStore())
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			task, err := rt.Start(ctx, echoRequest)
			if err != nil {
				b.Errorf("Start: %v", err)
				return
			}
			if _, err := rt.Wait(ctx, "alice", task.ID); err != nil {
				b.Errorf("Wait: %v", err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}

// storedRecord returns a completed task record of a typical size.
func storedRecord(now time.Time) (*tasks.Record, *tasks.Record) {
	rec := &tasks.Record{
		ID:             rand.Text(),
		Principal:      "user-7f3a9c",
		Method:         "tools/call",
		Name:           "slow_compute",
		Params:         raw(`{"name":"slow_compute","arguments":{"seconds":2,"label":"nightly"}}`),
		Status:         tasks.StatusWorking,
		CreatedAt:      now,
		UpdatedAt:      now,
		ExpiresAt:      now.Add(time.Hour),
		PollInterval:   time.Second,
		Owner:          "weft-instance-1",
		LeaseExpiresAt: now.Add(30 * time.Second),
		Runs:           1,
	}
	done := rec.Clone()
	done.Status = tasks.StatusCompleted
	done.Result = raw(`{"content":[{"type":"text","text":"computed nightly in 2s"}],"isError":false}`)
	done.LeaseExpiresAt = time.Time{}
	return rec, done
}

// BenchmarkGetWith100kTasks measures Runtime.Get among 100,000 stored tasks.
func BenchmarkGetWith100kTasks(b *testing.B) {
	store := tasks.NewMemoryStore()
	ctx := context.Background()
	now := time.Now()
	ids := make([]string, 100_000)
	for i := range ids {
		rec, done := storedRecord(now)
		if err := store.Create(ctx, rec, tasks.Quota{}); err != nil {
			b.Fatalf("Create: %v", err)
		}
		done.Version = rec.Version
		if err := store.Update(ctx, done); err != nil {
			b.Fatalf("Update: %v", err)
		}
		ids[i] = rec.ID
	}
	rt := benchRuntime(b, store)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := rt.Get(ctx, "user-7f3a9c", ids[i%len(ids)]); err != nil {
			b.Fatalf("Get: %v", err)
		}
		i += 7919 // a prime stride, so reads do not follow insertion order
	}
}

// BenchmarkMemoryPerStoredTask reports the heap a completed task of a
// typical size takes in the memory store, indexes included.
func BenchmarkMemoryPerStoredTask(b *testing.B) {
	const n = 20_000
	ctx := context.Background()
	var perTask float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		store := tasks.NewMemoryStore()
		now := time.Now()
		for range n {
			rec, done := storedRecord(now)
			if err := store.Create(ctx, rec, tasks.Quota{}); err != nil {
				b.Fatalf("Create: %v", err)
			}
			done.Version = rec.Version
			if err := store.Update(ctx, done); err != nil {
				b.Fatalf("Update: %v", err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perTask = float64(after.HeapAlloc-before.HeapAlloc) / n
		runtime.KeepAlive(store)
	}
	b.ReportMetric(perTask, "bytes/task")
}

// BenchmarkCreateUnderProgressLoad measures task creation while
// storetest.ProgressLoad tasks report progress every second.
func BenchmarkCreateUnderProgressLoad(b *testing.B) {
	storetest.BenchCreateUnderProgressLoad(b, tasks.NewMemoryStore(), tasks.NewMemoryBus())
}

// BenchmarkTaskLife measures the store operations of a task's life on the
// memory store (see storetest.BenchTaskLife).
func BenchmarkTaskLife(b *testing.B) {
	storetest.BenchTaskLife(b, func(*testing.B) (tasks.Store, tasks.Bus) { return tasks.NewMemoryStore(), tasks.NewMemoryBus() })
}
