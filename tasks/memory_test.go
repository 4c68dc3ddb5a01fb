package tasks_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

func TestMemoryStoreContract(t *testing.T) {
	storetest.TestStore(t, func(*testing.T) tasks.Store { return tasks.NewMemoryStore() })
}

func TestMemoryStorePairContract(t *testing.T) {
	storetest.TestStorePair(t, func(*testing.T) (tasks.Store, tasks.Store) {
		s := tasks.NewMemoryStore()
		return s, s
	})
}

func TestMemoryBusContract(t *testing.T) {
	storetest.TestBus(t, func(*testing.T) tasks.Bus { return tasks.NewMemoryBus() })
}

func TestMemoryBusPairContract(t *testing.T) {
	storetest.TestBusPair(t, func(*testing.T) (tasks.Bus, tasks.Bus) {
		b := tasks.NewMemoryBus()
		return b, b
	})
}

// The memory backend, shared by Runtimes in one process, keeps the
// multi-instance contract too.
func TestMemoryClusterContract(t *testing.T) {
	storetest.TestCluster(t, func(t *testing.T) func() (tasks.Store, tasks.Bus) {
		store, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
		return func() (tasks.Store, tasks.Bus) { return store, bus }
	})
}
