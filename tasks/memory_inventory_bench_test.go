package tasks_test

import (
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// BenchmarkInventory100000 lists a memory store of 100,000 tasks.
func BenchmarkInventory100000(b *testing.B) {
	storetest.BenchInventory(b, tasks.NewMemoryStore(), 100000)
}
