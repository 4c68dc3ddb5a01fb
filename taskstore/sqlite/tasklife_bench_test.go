package sqlite_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// BenchmarkTaskLife measures the store operations of a task's life on a
// Store and Bus of one file at the default durability (see
// storetest.BenchTaskLife).
func BenchmarkTaskLife(b *testing.B) {
	storetest.BenchTaskLife(b, func(b *testing.B) (tasks.Store, tasks.Bus) {
		path := dbPath(b)
		return open(b, path), openBus(b, path)
	})
}
