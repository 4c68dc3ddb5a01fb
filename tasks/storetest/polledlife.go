package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// pollRoundTrip is the pause between two polls of a client in
// BenchPolledTaskLife: about a tasks/get round trip over loopback HTTP.
const pollRoundTrip = 100 * time.Microsecond

// PolledLifeInFlight are the numbers of clients BenchPolledTaskLife runs
// at once: one alone, and the 32 the bench harness keeps in flight.
var PolledLifeInFlight = []int{1, 32}

// BenchPolledTaskLife measures whole task lives on a Runtime over store
// and bus, as clients polling back-to-back see them (the load under which
// a durable store collapsed, issue 19): each of inFlight clients starts a
// task whose handler returns at once, reads it until it is finished (a
// tasks/get each time, answered with Runtime.Poll as servers answer it, a
// round trip apart), and reads it once more (its tasks/result), then
// starts the next. It reports tasks/s, polls/task and the process's CPU
// time per task (the engine's and the store client's; a store server's
// own is not in it), which depends less on the machine's load than the
// rate does. Run it at each of PolledLifeInFlight, on the memory store in
// the same run, to compare stores within one run on a loaded machine.
func BenchPolledTaskLife(b *testing.B, store tasks.Store, bus tasks.Bus, inFlight int) {
	rt, err := tasks.New(store, bus, tasks.WithLogger(slog.New(slog.DiscardHandler)), tasks.WithLimits(0, 0))
	if err != nil {
		b.Fatalf("tasks.New: %v", err)
	}
	b.Cleanup(func() { rt.Close(context.Background()) })
	rt.Register("tools/call", "echo", func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: json.RawMessage(`{"content":[]}`)}, nil
	}, tasks.Policy{})
	ctx := context.Background()
	var (
		left  atomic.Int64
		polls atomic.Int64
		wg    sync.WaitGroup
	)
	left.Store(int64(b.N))
	cpuBefore, cpuKnown := processCPU()
	b.ResetTimer()
	for c := range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			principal := fmt.Sprint("client-", c)
			for left.Add(-1) >= 0 {
				if err := life(ctx, rt, principal, &polls); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if cpuAfter, ok := processCPU(); ok && cpuKnown {
		b.ReportMetric(float64((cpuAfter-cpuBefore).Microseconds())/float64(b.N), "cpu-µs/task")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
	b.ReportMetric(float64(polls.Load())/float64(b.N), "polls/task")
}

// life starts a task, polls it to its end and reads it once more.
func life(ctx context.Context, rt *tasks.Runtime, principal string, polls *atomic.Int64) error {
	task, err := rt.Start(ctx, tasks.StartRequest{Principal: principal, Method: "tools/call", Name: "echo"})
	if err != nil {
		return fmt.Errorf("starting a task: %w", err)
	}
	for !task.Status.Terminal() {
		// A client's next poll comes after a round trip, which pollRoundTrip
		// stands for. Without one, polls that cost no store call (the
		// memory store, or a Runtime's record cache) spin by the thousand
		// a task, and the handler they wait for runs only when the
		// scheduler preempts them: the figures then measure that.
		time.Sleep(pollRoundTrip)
		polls.Add(1)
		if task, err = rt.Poll(ctx, principal, task.ID); err != nil {
			return fmt.Errorf("polling a task: %w", err)
		}
	}
	if _, err := rt.Get(ctx, principal, task.ID); err != nil {
		return fmt.Errorf("getting the finished task: %w", err)
	}
	return nil
}
