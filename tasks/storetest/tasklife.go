package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// BenchTaskLife measures the store operations of one task's life on a
// Runtime over the store and bus that open returns: the task is started
// (its handler returns at once), read until it has finished, as a client
// polling tasks/get back to back does, and waited for, as tasks/result
// does: the three requests of a client's task life (tools/call, tasks/get,
// tasks/result). It runs at 1 and 32 lives in flight and reports, besides
// the time and allocations of a life, store-ops/life: every Store call but
// the background sweeps, counted through a CountingStore.
//
// Call it from a benchmark of each driver, so that a change costing a
// store round trip shows without the bench harness:
//
//	func BenchmarkTaskLife(b *testing.B) {
//		storetest.BenchTaskLife(b, func(b *testing.B) (tasks.Store, tasks.Bus) { return open(b), openBus(b) })
//	}
func BenchTaskLife(b *testing.B, open func(b *testing.B) (tasks.Store, tasks.Bus)) {
	for _, inFlight := range []int{1, 32} {
		b.Run(fmt.Sprintf("inflight=%d", inFlight), func(b *testing.B) {
			store, bus := open(b)
			counted := &CountingStore{Store: store}
			opts := []tasks.Option{tasks.WithLogger(slog.New(slog.DiscardHandler)), tasks.WithLimits(0, 0)}
			if _, mem := store.(*tasks.MemoryStore); mem {
				// The Runtime's default on a MemoryStore, which the
				// CountingStore would hide.
				opts = append(opts, tasks.WithRecordCache(0))
			}
			rt, err := tasks.New(counted, bus, opts...)
			if err != nil {
				b.Fatalf("tasks.New: %v", err)
			}
			b.Cleanup(func() { rt.Close(context.Background()) })
			rt.Register("tools/call", "echo", func(context.Context, *tasks.Exec) (tasks.Result, error) {
				return tasks.Result{Value: json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)}, nil
			}, tasks.Policy{})
			ctx := context.Background()
			life := func() error {
				task, err := rt.Start(ctx, tasks.StartRequest{Principal: "bench", Method: "tools/call", Name: "echo",
					Params: json.RawMessage(`{"name":"echo","arguments":{}}`)})
				if err != nil {
					return fmt.Errorf("starting a task: %w", err)
				}
				if _, err := rt.Get(ctx, "bench", task.ID); err != nil {
					return fmt.Errorf("getting a task: %w", err)
				}
				done, err := rt.Wait(ctx, "bench", task.ID)
				if err != nil {
					return fmt.Errorf("waiting for the task: %w", err)
				}
				if done.Status != tasks.StatusCompleted {
					return fmt.Errorf("the task ended %s, want completed", done.Status)
				}
				return nil
			}
			before := counted.Ops()
			b.ReportAllocs()
			b.ResetTimer()
			if inFlight == 1 {
				for range b.N {
					if err := life(); err != nil {
						b.Fatal(err)
					}
				}
			} else {
				b.SetParallelism((inFlight + 1) / 2) // GOMAXPROCS is 2 on the reference machine
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := life(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.StopTimer()
			ops := counted.Ops().Sub(before)
			b.ReportMetric(float64(ops.Total())/float64(b.N), "store-ops/life")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
		})
	}
}
