package redis_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// Runtimes with their own Store, Bus and connections on one Redis prefix
// stand for server instances sharing one Redis.
func TestClusterContract(t *testing.T) {
	storetest.TestCluster(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		needRedis(t)
		prefix := newPrefix(t)
		return func() (tasks.Store, tasks.Bus) { return newStore(t, prefix), newBus(t, prefix) }
	})
}

// The same with each instance's Store and Bus on one client, as a server
// holds them: the Store's writes carry their signals (tasks.SignallingStore).
func TestClusterContractWithSignallingWrites(t *testing.T) {
	storetest.TestCluster(t, pairedInstances)
}
