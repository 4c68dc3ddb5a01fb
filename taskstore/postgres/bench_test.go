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
