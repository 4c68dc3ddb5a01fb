package postgres_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// Runtimes with their own Store and Bus (and connections) on one schema
// stand for server instances sharing one database.
func TestClusterContract(t *testing.T) {
	storetest.TestCluster(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		schema := freshSchema(t)
		return func() (tasks.Store, tasks.Bus) { return open(t, schema), openBus(t, schema) }
	})
}
