package console

import (
	"context"
	"sync"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// totalsCost is how many times longer than the last count the console
// waits before counting again: counting reads every task (a full-table
// GROUP BY in SQLite, 0.5 s for 100,000 tasks at load average 20 in
// BenchmarkInventory100000/Totals), so however many pages watch, the
// console spends at most a tenth of its time counting.
const totalsCost = 10

// totalsView is the answer of GET api/totals and of a "totals" event.
type totalsView struct {
	ByStatus map[tasks.Status]int `json:"byStatus"`
	ByOwner  map[string]int       `json:"byOwner"`
}

// totalsCache shares one count among every page watching the console.
type totalsCache struct {
	mu   sync.Mutex // held while counting: one count at a time
	view totalsView
	at   time.Time     // when the cached count began; zero for none
	took time.Duration // how long it took
}

// totals returns the store's totals, counted at most once per totalsEvery
// and per totalsCost times the last count's duration, when the cached
// count began, and when a fresh one may begin.
func (c *Console) totals(ctx context.Context) (v totalsView, at, next time.Time, err error) {
	tc := &c.totalsCache
	tc.mu.Lock()
	defer tc.mu.Unlock()
	now := c.now()
	if !tc.at.IsZero() && now.Before(tc.nextCount()) {
		return tc.view, tc.at, tc.nextCount(), nil
	}
	t, err := c.inventory.Totals(ctx)
	if err != nil {
		return totalsView{}, time.Time{}, time.Time{}, err
	}
	v = totalsView{ByStatus: t.ByStatus, ByOwner: t.ByOwner}
	if v.ByStatus == nil {
		v.ByStatus, v.ByOwner = map[tasks.Status]int{}, map[string]int{}
	}
	tc.view, tc.at, tc.took = v, now, c.now().Sub(now)
	return v, tc.at, tc.nextCount(), nil
}

// nextCount is when a fresh count may begin; tc.mu is held.
func (tc *totalsCache) nextCount() time.Time {
	return tc.at.Add(max(totalsEvery, totalsCost*tc.took))
}
