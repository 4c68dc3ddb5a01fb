package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// TestInventory runs the contract of tasks.Inventory, the operator's
// listing, against fresh stores from open, one per subtest; each store
// must implement tasks.Inventory.
func TestInventory(t *testing.T, open func(t *testing.T) tasks.Store) {
	inventory := func(t *testing.T) (tasks.Store, tasks.Inventory) {
		s := open(t)
		inv, ok := s.(tasks.Inventory)
		if !ok {
			t.Fatalf("%T does not implement tasks.Inventory", s)
		}
		return s, inv
	}
	tests := []struct {
		name string
		fn   func(*testing.T, tasks.Store, tasks.Inventory)
	}{
		{"NewestFirstAcrossPrincipals", testInventoryOrder},
		{"Filters", testInventoryFilters},
		{"FilterBeyondOneScan", testInventoryLongScan},
		{"StableUnderConcurrentInserts", testInventoryInserts},
		{"SkipsDeletedRecords", testInventoryDeletes},
		{"InvalidCursor", testInventoryCursor},
		{"Totals", testInventoryTotals},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, inv := inventory(t)
			tc.fn(t, s, inv)
		})
	}
}

// inventoryIDs pages through ListAll with the limit, returning the IDs in order.
func inventoryIDs(t *testing.T, inv tasks.Inventory, f tasks.Filter, limit int) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("ListAll never ends: the cursor keeps coming back")
		}
		recs, next, err := inv.ListAll(context.Background(), f, cursor, limit)
		if err != nil {
			t.Fatalf("ListAll(%+v, %q, %d): %v", f, cursor, limit, err)
		}
		if len(recs) > limit {
			t.Fatalf("ListAll(%+v, %q, %d) returned %d records", f, cursor, limit, len(recs))
		}
		for _, rec := range recs {
			if !f.Match(rec) {
				t.Fatalf("ListAll(%+v) returned %s: status %s, name %s, principal %s", f, rec.ID, rec.Status, rec.Name, rec.Principal)
			}
			ids = append(ids, rec.ID)
		}
		if next == "" {
			return ids
		}
		cursor = next
	}
}

// createMany creates n records, cycling through the principals, and
// returns their IDs newest first.
func createMany(t *testing.T, s tasks.Store, n int, principals ...string) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		rec := create(t, s, newRecord(principals[i%len(principals)]))
		ids[n-1-i] = rec.ID
	}
	return ids
}

func testInventoryOrder(t *testing.T, s tasks.Store, inv tasks.Inventory) {
	want := createMany(t, s, 7, "alice", "bob", "carol")
	for _, limit := range []int{1, 2, 3, 7, 50} {
		if got := inventoryIDs(t, inv, tasks.Filter{}, limit); !slices.Equal(got, want) {
			t.Errorf("ListAll with limit %d = %v, want every task newest first %v", limit, got, want)
		}
	}
	recs, _, err := inv.ListAll(context.Background(), tasks.Filter{}, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	sameRecord(t, recs[0], get(t, s, want[0]))
	if _, _, err := inv.ListAll(context.Background(), tasks.Filter{}, "", 0); err == nil {
		t.Error("ListAll with limit 0 succeeded, want an error")
	}
}

func testInventoryFilters(t *testing.T, s tasks.Store, inv tasks.Inventory) {
	var all []*tasks.Record
	for i := range 12 {
		rec := newRecord([]string{"alice", "bob"}[i%2])
		rec.Name = []string{"sleep", "echo", "confirm"}[i%3]
		create(t, s, rec)
		switch i % 4 {
		case 1:
			finish(rec, tasks.StatusCompleted)
			update(t, s, rec)
		case 2:
			rec.Status = tasks.StatusInputRequired
			update(t, s, rec)
		case 3:
			finish(rec, tasks.StatusCancelled)
			update(t, s, rec)
		}
		all = append([]*tasks.Record{rec}, all...)
	}
	for _, f := range []tasks.Filter{
		{Status: tasks.StatusCompleted},
		{Status: tasks.StatusInputRequired},
		{Status: tasks.StatusFailed},
		{Name: "echo"},
		{Principal: "bob"},
		{Principal: "bob", Name: "sleep"},
		{Principal: "alice", Status: tasks.StatusWorking, Name: "sleep"},
		{Principal: "nobody"},
	} {
		var want []string
		for _, rec := range all {
			if f.Match(rec) {
				want = append(want, rec.ID)
			}
		}
		if got := inventoryIDs(t, inv, f, 2); !slices.Equal(got, want) {
			t.Errorf("ListAll(%+v) = %v, want %v", f, got, want)
		}
	}
}

// testInventoryLongScan: a filter matching a few tasks among more than one
// scan's worth finds every one of them, on pages that may be short.
func testInventoryLongScan(t *testing.T, s tasks.Store, inv tasks.Inventory) {
	n := tasks.InventoryScan + 200
	var want []string
	for i := range n {
		rec := newRecord("alice")
		if i == 3 || i == n-3 || i == n/2 {
			rec.Name = "rare"
			want = append([]string{rec.ID}, want...)
		}
		create(t, s, rec)
	}
	if got := inventoryIDs(t, inv, tasks.Filter{Name: "rare"}, 10); !slices.Equal(got, want) {
		t.Errorf("ListAll(rare) = %v, want %v", got, want)
	}
	totals, err := inv.Totals(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if totals.ByStatus[tasks.StatusWorking] != n || totals.ByOwner["instance-a"] != n {
		t.Errorf("Totals of %d working tasks = %+v", n, totals)
	}
}

func testInventoryInserts(t *testing.T, s tasks.Store, inv tasks.Inventory) {
	want := createMany(t, s, 6, "alice", "bob")
	recs, cursor, err := inv.ListAll(context.Background(), tasks.Filter{}, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{recs[0].ID, recs[1].ID}
	createMany(t, s, 3, "alice", "carol") // newer than the cursor: not in this paging
	for cursor != "" {
		recs, cursor, err = inv.ListAll(context.Background(), tasks.Filter{}, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			got = append(got, rec.ID)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("paging while tasks were created gave %v, want %v", got, want)
	}
}

func testInventoryDeletes(t *testing.T, s tasks.Store, inv tasks.Inventory) {
	ids := createMany(t, s, 5, "alice", "bob")
	if err := s.Delete(context.Background(), ids[1]); err != nil {
		t.Fatal(err)
	}
	recs, cursor, err := inv.ListAll(context.Background(), tasks.Filter{}, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(context.Background(), ids[0]); err != nil { // the cursor's own record
		t.Fatal(err)
	}
	got := []string{recs[0].ID}
	got = append(got, listAllFrom(t, inv, cursor)...)
	want := []string{ids[0], ids[2], ids[3], ids[4]}
	if !slices.Equal(got, want) {
		t.Errorf("ListAll around deletes = %v, want %v", got, want)
	}
}

// listAllFrom pages through ListAll from the cursor, two at a time.
func listAllFrom(t *testing.T, inv tasks.Inventory, cursor string) []string {
	t.Helper()
	var ids []string
	for cursor != "" {
		recs, next, err := inv.ListAll(context.Background(), tasks.Filter{}, cursor, 2)
		if err != nil {
			t.Fatalf("ListAll(%q): %v", cursor, err)
		}
		for _, rec := range recs {
			ids = append(ids, rec.ID)
		}
		cursor = next
	}
	return ids
}

func testInventoryCursor(t *testing.T, s tasks.Store, inv tasks.Inventory) {
	createMany(t, s, 1, "alice")
	for _, cursor := range []string{"garbage", "-1", "\x00"} {
		if _, _, err := inv.ListAll(context.Background(), tasks.Filter{}, cursor, 10); !errors.Is(err, tasks.ErrInvalidCursor) {
			t.Errorf("ListAll with cursor %q: %v, want ErrInvalidCursor", cursor, err)
		}
	}
}

func testInventoryTotals(t *testing.T, s tasks.Store, inv tasks.Inventory) {
	empty, err := inv.Totals(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := sum(empty.ByStatus) + sum(empty.ByOwner); n != 0 {
		t.Errorf("Totals of an empty store = %+v, want none", empty)
	}
	want := tasks.Totals{}
	for i := range 9 {
		rec := newRecord(fmt.Sprint("p", i%2))
		rec.Owner = []string{"instance-a", "instance-b", "instance-a"}[i%3]
		create(t, s, rec)
		switch i % 3 {
		case 1:
			rec.Status = tasks.StatusInputRequired
			update(t, s, rec)
		case 2:
			finish(rec, []tasks.Status{tasks.StatusCompleted, tasks.StatusFailed, tasks.StatusCancelled}[(i/3)%3])
			update(t, s, rec)
		}
		want.Add(rec.Status, rec.Owner)
	}
	got, err := inv.Totals(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for status, n := range want.ByStatus {
		if got.ByStatus[status] != n {
			t.Errorf("Totals.ByStatus[%s] = %d, want %d (all: %v)", status, got.ByStatus[status], n, got.ByStatus)
		}
	}
	for owner, n := range want.ByOwner {
		if got.ByOwner[owner] != n {
			t.Errorf("Totals.ByOwner[%s] = %d, want %d (all: %v)", owner, got.ByOwner[owner], n, got.ByOwner)
		}
	}
	if sum(got.ByStatus) != 9 || sum(got.ByOwner) != sum(want.ByOwner) {
		t.Errorf("Totals = %+v, want %+v", got, want)
	}
}

func sum[K comparable](m map[K]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
