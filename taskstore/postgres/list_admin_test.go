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
