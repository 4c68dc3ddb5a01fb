package redis_test

import (
	"fmt"
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/redis"
)

// BenchmarkCreateComplete creates a task and completes it, from parallel
// goroutines.
func BenchmarkCreateComplete(b *testing.B) {
	// 16 goroutines on 2 cores: enough requests in flight to hide the round trips.
	storetest.BenchCreateComplete(b, newStore(b, newPrefix(b)), 8)
}

// BenchmarkGet reads one task: the latency of a tasks/get.
func BenchmarkGet(b *testing.B) {
	storetest.BenchGet(b, newStore(b, newPrefix(b)), 0)
}

// benchInstance starts a Runtime with its own Store and Bus on the prefix.
func benchInstance(b *testing.B, prefix, name string) *tasks.Runtime {
	return storetest.BenchRuntime(b, newStore(b, prefix), newBus(b, prefix), name)
}

// BenchmarkRuntimeStartToCompleted starts a task whose handler returns at
// once and waits for its completion, from parallel goroutines.
func BenchmarkRuntimeStartToCompleted(b *testing.B) {
	storetest.BenchStartToCompleted(b, benchInstance(b, newPrefix(b), "a"), 8)
}

// BenchmarkCancelAcrossInstances measures from Cancel on one instance to
// the handler's context ending on another.
func BenchmarkCancelAcrossInstances(b *testing.B) {
	prefix := newPrefix(b)
	storetest.BenchCancelAcrossInstances(b, benchInstance(b, prefix, "a"), benchInstance(b, prefix, "b"))
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
