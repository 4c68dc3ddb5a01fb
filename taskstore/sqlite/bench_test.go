package sqlite_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// benchRecord returns a new working record as the Runtime writes it.
func benchRecord() *tasks.Record {
	now := time.Now()
	return &tasks.Record{ID: rand.Text(), Principal: "bench", Method: "tools/call", Name: "echo",
		Params: json.RawMessage(`{"name":"echo","arguments":{"text":"hello"}}`), Status: tasks.StatusWorking,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour), PollInterval: time.Second,
		Owner: "bench", LeaseExpiresAt: now.Add(30 * time.Second), Runs: 1}
}

// BenchmarkCreateComplete creates a task and completes it (a read and a
// compare-and-swap write, as the Runtime does), from parallel goroutines,
// with each durability setting.
func BenchmarkCreateComplete(b *testing.B) {
	for _, sync := range []sqlite.Synchronous{sqlite.SyncFull, sqlite.SyncNormal} {
		b.Run(string(sync), func(b *testing.B) {
			s := open(b, dbPath(b), sqlite.WithSynchronous(sync))
			ctx := context.Background()
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rec := benchRecord()
					if err := s.Create(ctx, rec, tasks.Quota{PerPrincipal: 1 << 20}); err != nil {
						b.Error(err)
						return
					}
					cur, err := s.Get(ctx, rec.ID)
					if err != nil {
						b.Error(err)
						return
					}
					cur.Status, cur.Result = tasks.StatusCompleted, json.RawMessage(`{"content":[]}`)
					if err := s.Update(ctx, cur); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}

// BenchmarkGet reads one task among ten thousand: the latency of a tasks/get.
func BenchmarkGet(b *testing.B) {
	s := open(b, dbPath(b), sqlite.WithSynchronous(sqlite.SyncNormal))
	ctx := context.Background()
	var id string
	for range 10000 {
		rec := benchRecord()
		if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
			b.Fatal(err)
		}
		id = rec.ID
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Get(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInstance starts a Runtime with its own Store and Bus on the file.
func benchInstance(b *testing.B, path, name string) *tasks.Runtime {
	rt, err := tasks.New(open(b, path), openBus(b, path), tasks.WithInstanceID(name),
		tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// BenchmarkRuntimeStartToCompleted starts a task whose handler returns at
// once and waits for its completion, from parallel goroutines.
func BenchmarkRuntimeStartToCompleted(b *testing.B) {
	rt := benchInstance(b, dbPath(b), "a")
	rt.Register("tools/call", "echo", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: json.RawMessage(`{"content":[]}`)}, nil
	}, tasks.Policy{})
	ctx := context.Background()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			task, err := rt.Start(ctx, tasks.StartRequest{Principal: "bench", Method: "tools/call", Name: "echo"})
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := rt.Wait(ctx, "bench", task.ID); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}

// BenchmarkCancelAcrossInstances measures from Cancel on instance b to the
// handler's context ending on instance a, the two sharing the file as two
// processes would: the signal crosses by the Bus's poll.
func BenchmarkCancelAcrossInstances(b *testing.B) {
	path := dbPath(b)
	a, other := benchInstance(b, path, "a"), benchInstance(b, path, "b")
	started, stopped := make(chan struct{}), make(chan time.Time)
	a.Register("tools/call", "block", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		started <- struct{}{}
		<-ctx.Done()
		stopped <- time.Now()
		return tasks.Result{}, ctx.Err()
	}, tasks.Policy{})
	ctx := context.Background()
	latencies := make([]time.Duration, 0, b.N)
	for b.Loop() {
		task, err := a.Start(ctx, tasks.StartRequest{Principal: "bench", Method: "tools/call", Name: "block"})
		if err != nil {
			b.Fatal(err)
		}
		<-started
		begin := time.Now()
		if _, err := other.Cancel(ctx, "bench", task.ID); err != nil {
			b.Fatal(err)
		}
		latencies = append(latencies, (<-stopped).Sub(begin))
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds()), "cancel-p50-µs")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds()), "cancel-p99-µs")
}

// BenchmarkCreateUnderProgressLoad measures task creation while
// storetest.ProgressLoad tasks report progress every second, with each
// durability setting (FULL is the default, as weft serve opens the file).
func BenchmarkCreateUnderProgressLoad(b *testing.B) {
	for _, sync := range []sqlite.Synchronous{sqlite.SyncFull, sqlite.SyncNormal} {
		b.Run(string(sync), func(b *testing.B) {
			path := dbPath(b)
			storetest.BenchCreateUnderProgressLoad(b, open(b, path, sqlite.WithSynchronous(sync)),
				openBus(b, path, sqlite.WithSynchronous(sync)))
		})
	}
}

// BenchmarkPolledTaskLife runs whole task lives, clients polling back-to-back, at
// 1 and 32 in flight, on the memory store and on SQLite at each durability
// in the same run, so that the ratios hold on a loaded machine.
func BenchmarkPolledTaskLife(b *testing.B) {
	for _, n := range storetest.PolledLifeInFlight {
		b.Run(fmt.Sprintf("store=memory/inflight=%d", n), func(b *testing.B) {
			storetest.BenchPolledTaskLife(b, tasks.NewMemoryStore(), tasks.NewMemoryBus(), n)
		})
		for _, sync := range []sqlite.Synchronous{sqlite.SyncFull, sqlite.SyncNormal} {
			b.Run(fmt.Sprintf("store=sqlite-%s/inflight=%d", sync, n), func(b *testing.B) {
				path := dbPath(b)
				storetest.BenchPolledTaskLife(b, open(b, path, sqlite.WithSynchronous(sync)), openBus(b, path), n)
				reportWriter(b, path)
			})
		}
	}
}

// reportWriter reports the transactions committed and the writes they held
// per operation of the benchmark, on the file at path: with full sync,
// each transaction is one sync of the log to the disk.
func reportWriter(b *testing.B, path string) {
	commits, writes := sqlite.WriterCounts(path)
	b.ReportMetric(float64(commits)/float64(b.N), "commits/op")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
}

// BenchmarkRenewLeases renews the leases of 10,000 running tasks at the
// default durability (full sync), as one heartbeat of an instance running
// them does: it must take well under the 30 s lease.
func BenchmarkRenewLeases(b *testing.B) {
	storetest.BenchRenewLeases(b, open(b, dbPath(b)), 10_000)
}
