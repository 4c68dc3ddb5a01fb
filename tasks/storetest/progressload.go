package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// ProgressLoad is how many running tasks BenchCreateUnderProgressLoad keeps
// reporting progress, each once a second.
const ProgressLoad = 10_000

// BenchCreateUnderProgressLoad measures how long creating a task takes on
// a Runtime over store and bus while ProgressLoad other tasks run, each
// reporting progress every second. It reports the median and the 99th
// percentile of Start's latency as p50-ms and p99-ms.
func BenchCreateUnderProgressLoad(b *testing.B, store tasks.Store, bus tasks.Bus) {
	rt, err := tasks.New(store, bus, tasks.WithLogger(slog.New(slog.DiscardHandler)), tasks.WithLimits(0, 0))
	if err != nil {
		b.Fatalf("tasks.New: %v", err)
	}
	ctx := context.Background()
	b.Cleanup(func() {
		stop, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		rt.Close(stop)
	})
	running := make(chan struct{}, ProgressLoad)
	rt.Register("tools/call", "report", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		running <- struct{}{}
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return tasks.Result{}, ctx.Err()
			case <-tick.C:
				x.Progress(fmt.Sprintf("step %d", n))
			}
		}
	}, tasks.Policy{})
	rt.Register("tools/call", "quick", func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: json.RawMessage(`{}`)}, nil
	}, tasks.Policy{})

	for i := range ProgressLoad {
		req := tasks.StartRequest{Principal: fmt.Sprint("client-", i%100), Method: "tools/call", Name: "report"}
		if _, err := rt.Start(ctx, req); err != nil {
			b.Fatalf("starting running task %d: %v", i, err)
		}
	}
	for range ProgressLoad {
		<-running
	}
	time.Sleep(2 * time.Second) // every handler has reported at least once

	latencies := make([]time.Duration, 0, b.N)
	req := tasks.StartRequest{Principal: "newcomer", Method: "tools/call", Name: "quick"}
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := rt.Start(ctx, req); err != nil {
			b.Fatalf("Start under load: %v", err)
		}
		latencies = append(latencies, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(latencies)
	at := func(q float64) float64 {
		return float64(latencies[int(q*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
