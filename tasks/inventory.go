package tasks

import "context"

// InventoryScan is the most records an Inventory examines for one page of
// ListAll: a filter that matches few tasks yields short (even empty) pages
// with a cursor to go on, instead of one call that reads the whole store.
const InventoryScan = 1000

// Inventory is the optional Store interface of an operator's view (the
// console): every principal's tasks, newest first, and their totals. The
// memory store and the drivers in taskstore implement it; check for it
// with a type assertion. Nothing it returns is filtered by principal, so
// only an operator may see it.
type Inventory interface {
	// ListAll returns up to limit (≥ 1) records matching the filter, newest
	// first, starting after cursor ("" for the newest), and the cursor of
	// the next page, "" once every older record has been examined. It
	// examines at most InventoryScan records, so a page may hold fewer than
	// limit records (even none) and still have a next. Paging is stable under
	// concurrent inserts: a record created after paging began is not
	// returned, and none is returned twice. A cursor the store did not
	// produce gives ErrInvalidCursor.
	ListAll(ctx context.Context, filter Filter, cursor string, limit int) (recs []*Record, next string, err error)
	// Totals counts the records in the store by status, and the unfinished
	// ones by the instance holding their lease.
	Totals(ctx context.Context) (Totals, error)
}

// Filter selects records for Inventory.ListAll; a zero field matches every
// record.
type Filter struct {
	Status    Status
	Name      string // for tools/call, the tool
	Principal string
}

// Match reports whether the record passes the filter.
func (f Filter) Match(rec *Record) bool {
	return (f.Status == "" || rec.Status == f.Status) &&
		(f.Name == "" || rec.Name == f.Name) &&
		(f.Principal == "" || rec.Principal == f.Principal)
}

// Totals counts tasks: ByStatus every record in the store by status,
// ByOwner the unfinished ones by the instance holding their lease ("" for
// none).
type Totals struct {
	ByStatus map[Status]int
	ByOwner  map[string]int
}

// Add counts one record.
func (t *Totals) Add(status Status, owner string) {
	if t.ByStatus == nil {
		t.ByStatus = make(map[Status]int)
		t.ByOwner = make(map[string]int)
	}
	t.ByStatus[status]++
	if !status.Terminal() {
		t.ByOwner[owner]++
	}
}
