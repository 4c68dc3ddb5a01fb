package redis_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

func TestInventoryContract(t *testing.T) {
	needRedis(t)
	storetest.TestInventory(t, func(t *testing.T) tasks.Store { return newStore(t, newPrefix(t)) })
}

func TestFeedContract(t *testing.T) {
	needRedis(t)
	storetest.TestFeed(t, func(t *testing.T) (tasks.Bus, tasks.Bus) {
		prefix := newPrefix(t)
		return newBus(t, prefix), newBus(t, prefix)
	})
}

// BenchmarkInventory100000 lists a store of 100,000 tasks.
func BenchmarkInventory100000(b *testing.B) {
	needRedis(b)
	storetest.BenchInventory(b, newStore(b, newPrefix(b)), 100000)
}
