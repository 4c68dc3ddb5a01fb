package sqlite_test

import (
	"fmt"
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// BenchmarkCreateComplete creates a task and completes it, from parallel
// goroutines, with each durability setting.
func BenchmarkCreateComplete(b *testing.B) {
	for _, sync := range []sqlite.Synchronous{sqlite.SyncFull, sqlite.SyncNormal} {
		b.Run(string(sync), func(b *testing.B) {
			storetest.BenchCreateComplete(b, open(b, dbPath(b), sqlite.WithSynchronous(sync)), 4)
		})
	}
}

// BenchmarkGet reads one task among ten thousand: the latency of a tasks/get.
func BenchmarkGet(b *testing.B) {
	storetest.BenchGet(b, open(b, dbPath(b), sqlite.WithSynchronous(sqlite.SyncNormal)), 9999)
}

// benchInstance starts a Runtime with its own Store and Bus on the path.
func benchInstance(b *testing.B, path, name string) *tasks.Runtime {
	return storetest.BenchRuntime(b, open(b, path), openBus(b, path), name)
}

// BenchmarkRuntimeStartToCompleted starts a task whose handler returns at
// once and waits for its completion, from parallel goroutines.
func BenchmarkRuntimeStartToCompleted(b *testing.B) {
	storetest.BenchStartToCompleted(b, benchInstance(b, dbPath(b), "a"), 4)
}

// BenchmarkCancelAcrossInstances measures from Cancel on one instance to
// the handler's context ending on another, the two sharing the file as two
// processes would: the signal crosses by the Bus's poll.
func BenchmarkCancelAcrossInstances(b *testing.B) {
	path := dbPath(b)
	storetest.BenchCancelAcrossInstances(b, benchInstance(b, path, "a"), benchInstance(b, path, "b"))
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
