package sqlite_test

import (
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

func TestInventoryContract(t *testing.T) {
	storetest.TestInventory(t, func(t *testing.T) tasks.Store { return open(t, dbPath(t)) })
}

func TestFeedContract(t *testing.T) {
	storetest.TestFeed(t, func(t *testing.T) (tasks.Bus, tasks.Bus) {
		path := dbPath(t)
		return openBus(t, path, sqlite.WithPollInterval(5*time.Millisecond)),
			openBus(t, path, sqlite.WithPollInterval(5*time.Millisecond))
	})
}

// BenchmarkInventory100000 lists a store of 100,000 tasks.
func BenchmarkInventory100000(b *testing.B) {
	storetest.BenchInventory(b, open(b, dbPath(b), sqlite.WithSynchronous(sqlite.SyncNormal)), 100000)
}
