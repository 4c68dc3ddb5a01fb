package redis_test

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
	"github.com/weftmcp/weft/taskstore/redis"
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
// compare-and-swap write, as the Runtime does), from parallel goroutines.
func BenchmarkCreateComplete(b *testing.B) {
	s := newStore(b, newPrefix(b))
	ctx := context.Background()
	b.SetParallelism(8) // 16 goroutines on 2 cores: enough requests in flight to hide the round trips
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
}

// BenchmarkGet reads one task: the latency of a tasks/get.
func BenchmarkGet(b *testing.B) {
	s := newStore(b, newPrefix(b))
	ctx := context.Background()
	rec := benchRecord()
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Get(ctx, rec.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInstance starts a Runtime with its own Store and Bus on the prefix.
func benchInstance(b *testing.B, prefix, name string) *tasks.Runtime {
	rt, err := tasks.New(newStore(b, prefix), newBus(b, prefix), tasks.WithInstanceID(name),
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
	rt := benchInstance(b, newPrefix(b), "a")
	rt.Register("tools/call", "echo", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: json.RawMessage(`{"content":[]}`)}, nil
	}, tasks.Policy{})
	ctx := context.Background()
	b.SetParallelism(8) // 16 goroutines on 2 cores: enough requests in flight to hide the round trips
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
// handler's context ending on instance a.
func BenchmarkCancelAcrossInstances(b *testing.B) {
	prefix := newPrefix(b)
	a, other := benchInstance(b, prefix, "a"), benchInstance(b, prefix, "b")
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
	reportLatencies(b, latencies, "cancel")
}

// reportLatencies reports the median and 99th percentile.
func reportLatencies(b *testing.B, ds []time.Duration, what string) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), what+"-p50-µs")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), what+"-p99-µs")
}

// BenchmarkRenewLeases renews the leases of 10,000 running tasks, as one
// heartbeat of an instance running them does: it must take well under
// the 30 s lease.
func BenchmarkRenewLeases(b *testing.B) {
	storetest.BenchRenewLeases(b, newStore(b, newPrefix(b)), 10_000)
}

// BenchmarkPolledTaskLife runs whole task lives, clients polling back-to-back, at
// 1 and 32 in flight, on the memory store and on Redis in the same run, so
// that the ratios hold on a loaded machine.
func BenchmarkPolledTaskLife(b *testing.B) {
	for _, n := range storetest.PolledLifeInFlight {
		b.Run(fmt.Sprintf("store=memory/inflight=%d", n), func(b *testing.B) {
			storetest.BenchPolledTaskLife(b, tasks.NewMemoryStore(), tasks.NewMemoryBus(), n)
		})
		b.Run(fmt.Sprintf("store=redis/inflight=%d", n), func(b *testing.B) {
			prefix, c, trips := newPrefix(b), newClient(b), &roundTripCounter{}
			c.AddHook(trips)
			s, err := redis.New(c, redis.WithPrefix(prefix))
			if err != nil {
				b.Fatal(err)
			}
			storetest.BenchPolledTaskLife(b, s, newBusOn(b, c, prefix), n)
			b.ReportMetric(float64(trips.count())/float64(b.N), "round-trips/task")
		})
	}
}
