package tasks_test

import (
	"fmt"

	"github.com/weftmcp/weft/tasks"
)

// A driver remembers each task it hands out, with the row it came from, and
// checks an Update against the remembered state when the record is at that
// version, writing only if the stored task is still at it.
func ExampleVersionCache() {
	seen := tasks.NewVersionCache(10_000)
	read := &tasks.Record{ID: "t1", Version: 4, Status: tasks.StatusWorking}
	seen.Put(17, read) // as Get returns it, from the row numbered 17

	change := read.Clone()
	change.StatusMessage = "half way"
	if stored, seq, ok := seen.At(change.ID, change.Version); ok {
		fmt.Println("check against version", stored.Version, "of row", seq, "without reading it:", tasks.CheckUpdate(stored, change))
	}
	if _, _, ok := seen.At(change.ID, 3); !ok {
		fmt.Println("an older version is read again")
	}
	// Output:
	// check against version 4 of row 17 without reading it: <nil>
	// an older version is read again
}
