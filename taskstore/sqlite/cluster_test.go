package sqlite_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// Runtimes with their own Store and Bus on one database file stand for
// server processes sharing it on one host. Commits skip the disk sync: the
// contract is about instances, not power cuts, and its expiry soak writes
// thousands of tasks.
func TestClusterContract(t *testing.T) {
	storetest.TestCluster(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		path := dbPath(t)
		return func() (tasks.Store, tasks.Bus) {
			return open(t, path, sqlite.WithSynchronous(sqlite.SyncNormal)), openBus(t, path, sqlite.WithSynchronous(sqlite.SyncNormal))
		}
	})
}
