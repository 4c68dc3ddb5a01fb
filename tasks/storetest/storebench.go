package storetest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// WorkingRecord returns a new working record as the Runtime writes it, its
// times from now, so that a store which expires records by their times
// keeps it through a benchmark or a test.
func WorkingRecord() *tasks.Record {
	now := time.Now()
	return &tasks.Record{ID: rand.Text(), Principal: "bench", Method: "tools/call", Name: "echo",
		Params: json.RawMessage(`{"name":"echo","arguments":{"text":"hello"}}`), Status: tasks.StatusWorking,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour), PollInterval: time.Second,
		Owner: "bench", LeaseExpiresAt: now.Add(30 * time.Second), Runs: 1}
}

// BenchCreateComplete creates a task in store and completes it (a read and
// a compare-and-swap write, as the Runtime does), from parallelism
// goroutines per CPU, and reports tasks/s.
func BenchCreateComplete(b *testing.B, store tasks.Store, parallelism int) {
	ctx := context.Background()
	b.SetParallelism(parallelism)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec := WorkingRecord()
			if err := store.Create(ctx, rec, tasks.Quota{PerPrincipal: 1 << 20}); err != nil {
				b.Error(err)
				return
			}
			cur, err := store.Get(ctx, rec.ID)
			if err != nil {
				b.Error(err)
				return
			}
			cur.Status, cur.Result = tasks.StatusCompleted, json.RawMessage(`{"content":[]}`)
			if err := store.Update(ctx, cur); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}

// BenchGet reads one task of store among others more: the latency of a
// tasks/get answered by the store.
func BenchGet(b *testing.B, store tasks.Store, others int) {
	ctx := context.Background()
	var id string
	for range others + 1 {
		rec := WorkingRecord()
		if err := store.Create(ctx, rec, tasks.Quota{}); err != nil {
			b.Fatal(err)
		}
		id = rec.ID
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := store.Get(ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchRuntime starts a Runtime named name on store and bus, logging
// nothing, and closes it when the benchmark ends.
func BenchRuntime(b *testing.B, store tasks.Store, bus tasks.Bus, name string) *tasks.Runtime {
	rt, err := tasks.New(store, bus, tasks.WithInstanceID(name), tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// BenchStartToCompleted starts a task on rt whose handler returns at once
// and waits for its completion, from parallelism goroutines per CPU, and
// reports tasks/s.
func BenchStartToCompleted(b *testing.B, rt *tasks.Runtime, parallelism int) {
	rt.Register("tools/call", "echo", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: json.RawMessage(`{"content":[]}`)}, nil
	}, tasks.Policy{})
	ctx := context.Background()
	b.SetParallelism(parallelism)
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

// BenchCancelAcrossInstances measures from Cancel on instance other to the
// handler's context ending on instance a, the two Runtimes sharing a store
// and a bus, and reports the median and 99th percentile.
func BenchCancelAcrossInstances(b *testing.B, a, other *tasks.Runtime) {
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
