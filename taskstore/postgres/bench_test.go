package postgres_test

import (
	"fmt"
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// BenchmarkPolledTaskLife runs whole task lives, clients polling back-to-back, at
// 1 and 32 in flight, on the memory store and on PostgreSQL in the same
// run, so that the ratios hold on a loaded machine.
func BenchmarkPolledTaskLife(b *testing.B) {
	for _, n := range storetest.PolledLifeInFlight {
		b.Run(fmt.Sprintf("store=memory/inflight=%d", n), func(b *testing.B) {
			storetest.BenchPolledTaskLife(b, tasks.NewMemoryStore(), tasks.NewMemoryBus(), n)
		})
		b.Run(fmt.Sprintf("store=postgres/inflight=%d", n), func(b *testing.B) {
			schema := freshSchema(b)
			storetest.BenchPolledTaskLife(b, open(b, schema), openBus(b, schema), n)
		})
	}
}

// BenchmarkRenewLeases renews the leases of 10,000 running tasks, as one
// heartbeat of an instance running them does: it must take well under
// the 30 s lease.
func BenchmarkRenewLeases(b *testing.B) {
	storetest.BenchRenewLeases(b, open(b, freshSchema(b)), 10_000)
}

// BenchmarkCreateComplete creates a task and completes it, from parallel
// goroutines.
func BenchmarkCreateComplete(b *testing.B) {
	// 16 goroutines on 2 cores: enough requests in flight to hide the round trips.
	storetest.BenchCreateComplete(b, open(b, freshSchema(b)), 8)
}

// BenchmarkGet reads one task among ten thousand: the latency of a tasks/get.
func BenchmarkGet(b *testing.B) {
	storetest.BenchGet(b, open(b, freshSchema(b)), 9999)
}

// benchInstance starts a Runtime with its own Store and Bus on the schema.
func benchInstance(b *testing.B, schema, name string) *tasks.Runtime {
	return storetest.BenchRuntime(b, open(b, schema), openBus(b, schema), name)
}

// BenchmarkRuntimeStartToCompleted starts a task whose handler returns at
// once and waits for its completion, from parallel goroutines.
func BenchmarkRuntimeStartToCompleted(b *testing.B) {
	storetest.BenchStartToCompleted(b, benchInstance(b, freshSchema(b), "a"), 8)
}

// BenchmarkCancelAcrossInstances measures from Cancel on one instance to
// the handler's context ending on another, the signal crossing by NOTIFY.
func BenchmarkCancelAcrossInstances(b *testing.B) {
	schema := freshSchema(b)
	storetest.BenchCancelAcrossInstances(b, benchInstance(b, schema, "a"), benchInstance(b, schema, "b"))
}
