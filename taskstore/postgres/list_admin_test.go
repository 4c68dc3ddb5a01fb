package postgres_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

func TestInventoryContract(t *testing.T) {
	storetest.TestInventory(t, func(t *testing.T) tasks.Store { return open(t, freshSchema(t)) })
}

func TestFeedContract(t *testing.T) {
	storetest.TestFeed(t, func(t *testing.T) (tasks.Bus, tasks.Bus) {
		schema := freshSchema(t)
		return openBus(t, schema), openBus(t, schema)
	})
}

// BenchmarkInventory100000 lists a store of 100,000 tasks.
func BenchmarkInventory100000(b *testing.B) {
	storetest.BenchInventory(b, open(b, freshSchema(b)), 100000)
}
