package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// BenchInventory measures an operator's listing (tasks.Inventory) of the
// store once it holds n tasks of 100 principals, one in 100 of them
// failed: the newest page of 50, a page 20 pages down, a page of the rare
// status, a page of one principal, and Totals. The store must be empty and
// implement tasks.Inventory.
func BenchInventory(b *testing.B, s tasks.Store, n int) {
	inv, ok := s.(tasks.Inventory)
	if !ok {
		b.Fatalf("%T does not implement tasks.Inventory", s)
	}
	ctx := context.Background()
	for i := range n {
		rec := newRecord(fmt.Sprint("principal-", i%100))
		if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
			b.Fatal(err)
		}
		if i%100 == 7 {
			finish(rec, tasks.StatusFailed)
			if err := s.Update(ctx, rec); err != nil {
				b.Fatal(err)
			}
		}
	}
	deep := ""
	for range 20 {
		_, next, err := inv.ListAll(ctx, tasks.Filter{}, deep, 50)
		if err != nil {
			b.Fatal(err)
		}
		deep = next
	}
	for _, bc := range []struct {
		name   string
		filter tasks.Filter
		cursor string
	}{
		{"Newest", tasks.Filter{}, ""},
		{"Deep", tasks.Filter{}, deep},
		{"RareStatus", tasks.Filter{Status: tasks.StatusFailed}, ""},
		{"Principal", tasks.Filter{Principal: "principal-42"}, ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := inv.ListAll(ctx, bc.filter, bc.cursor, 50); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("Totals", func(b *testing.B) {
		for b.Loop() {
			if _, err := inv.Totals(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
