package tasks_test

import (
	"fmt"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

func TestVersionCacheRemembersOneStatePerTaskWithinItsBound(t *testing.T) {
	c := tasks.NewVersionCache(2)
	rec := &tasks.Record{ID: "a", Version: 3, StatusMessage: "three"}
	c.Put(7, rec)
	rec.StatusMessage = "changed by the caller"
	got, seq, ok := c.At("a", 3)
	if !ok || seq != 7 || got.StatusMessage != "three" {
		t.Fatalf("At(a, 3) = %+v, %d, %v; want the copy put at creation number 7", got, seq, ok)
	}
	if _, _, ok := c.At("a", 2); ok {
		t.Errorf("At an older version than the one remembered found a state")
	}
	c.Put(7, &tasks.Record{ID: "a", Version: 4})
	if _, _, ok := c.At("a", 3); ok {
		t.Errorf("At a version replaced by a later Put found a state")
	}
	c.Forget("a")
	if _, _, ok := c.At("a", 4); ok {
		t.Errorf("At a forgotten task found a state")
	}
	for i := range 5 {
		c.Put(int64(i), &tasks.Record{ID: fmt.Sprint(i), Version: 1})
	}
	held := 0
	for i := range 5 {
		if _, _, ok := c.At(fmt.Sprint(i), 1); ok {
			held++
		}
	}
	if held != 2 {
		t.Errorf("a cache bounded to 2 tasks holds %d of 5", held)
	}
}
