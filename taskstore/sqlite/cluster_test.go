package sqlite_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// Runtimes with their own Store and Bus on one database file stand for
// server processes sharing it on one host.
func TestClusterContract(t *testing.T) {
	storetest.TestCluster(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		path := dbPath(t)
		return func() (tasks.Store, tasks.Bus) { return open(t, path), openBus(t, path) }
	})
}
