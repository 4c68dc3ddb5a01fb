package sqlite_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// Runtimes with their own Store and Bus on one database file keep the
// record cache's contract: the Bus, which polls the file, carries the
// signals that make a copy stale.
func TestRecordCacheContract(t *testing.T) {
	storetest.TestRecordCache(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		path := dbPath(t)
		return func() (tasks.Store, tasks.Bus) {
			return open(t, path, sqlite.WithSynchronous(sqlite.SyncNormal)), openBus(t, path, sqlite.WithSynchronous(sqlite.SyncNormal))
		}
	})
}
