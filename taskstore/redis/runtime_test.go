package redis_test

import (
	"context"
	"testing"
	"time"

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

// newRuntime returns a Runtime on store and bus, closed when the test ends.
func newRuntime(t *testing.T, store tasks.Store, bus tasks.Bus, opts ...tasks.Option) *tasks.Runtime {
	t.Helper()
	rt, err := tasks.New(store, bus, opts...)
	if err != nil {
		t.Fatalf("tasks.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := rt.Close(ctx); err != nil {
			t.Errorf("Runtime.Close: %v", err)
		}
	})
	return rt
}
