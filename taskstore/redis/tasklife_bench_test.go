package redis_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// BenchmarkTaskLife measures the store operations of a task's life on a
// Store and Bus under a fresh prefix (see storetest.BenchTaskLife).
func BenchmarkTaskLife(b *testing.B) {
	storetest.BenchTaskLife(b, func(b *testing.B) (tasks.Store, tasks.Bus) {
		prefix := newPrefix(b)
		return newStore(b, prefix), newBus(b, prefix)
	})
}
