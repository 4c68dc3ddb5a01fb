package tasks_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

func TestMemoryStoreInventoryContract(t *testing.T) {
	storetest.TestInventory(t, func(*testing.T) tasks.Store { return tasks.NewMemoryStore() })
}

func TestMemoryBusFeedContract(t *testing.T) {
	storetest.TestFeed(t, func(*testing.T) (tasks.Bus, tasks.Bus) {
		b := tasks.NewMemoryBus()
		return b, b
	})
}
