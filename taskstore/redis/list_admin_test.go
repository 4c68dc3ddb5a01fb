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
