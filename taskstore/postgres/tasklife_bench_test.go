package postgres_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// BenchmarkTaskLife measures the store operations of a task's life on a
// Store and Bus in a fresh schema (see storetest.BenchTaskLife).
func BenchmarkTaskLife(b *testing.B) {
	storetest.BenchTaskLife(b, func(b *testing.B) (tasks.Store, tasks.Bus) {
		schema := freshSchema(b)
		return open(b, schema), openBus(b, schema)
	})
}
