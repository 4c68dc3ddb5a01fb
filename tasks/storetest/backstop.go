package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// TestExpiryBackstop checks the bound a store without expiring keys of its
// own (SQL databases) keeps on expired tasks when no Runtime sweeps: every
// Create deletes up to two tasks whose ExpiresAt is at least the grace
// before the new task's CreatedAt, whatever their status. open returns a
// fresh store with the given grace.
func TestExpiryBackstop(t *testing.T, open func(t *testing.T, grace time.Duration) tasks.Store) {
	s := open(t, time.Minute)
	ctx := context.Background()
	at := func(created, expires time.Duration, status tasks.Status) *tasks.Record {
		rec := newRecord("alice")
		rec.CreatedAt, rec.UpdatedAt, rec.ExpiresAt = epoch.Add(created), epoch.Add(created), epoch.Add(expires)
		rec.LeaseExpiresAt = rec.CreatedAt.Add(30 * time.Second)
		create(t, s, rec)
		if status != tasks.StatusWorking {
			cur := get(t, s, rec.ID)
			finish(cur, status)
			update(t, s, cur)
		}
		return rec
	}
	exists := func(rec *tasks.Record) bool {
		t.Helper()
		_, err := s.Get(ctx, rec.ID)
		if err != nil && !errors.Is(err, tasks.ErrNotFound) {
			t.Fatalf("Get: %v", err)
		}
		return err == nil
	}
	old := at(0, time.Minute, tasks.StatusWorking)
	recent := at(0, 2*time.Minute, tasks.StatusCompleted)
	at(2*time.Minute, time.Hour, tasks.StatusWorking)
	if exists(old) || !exists(recent) {
		t.Fatalf("a Create a grace after one task expired and less after another: the first exists %v, the second %v; "+
			"want the first deleted and the second kept", exists(old), exists(recent))
	}

	olds := []*tasks.Record{at(0, time.Minute, tasks.StatusCompleted), at(0, time.Minute, tasks.StatusFailed), at(0, time.Minute, tasks.StatusWorking)}
	at(10*time.Minute, time.Hour, tasks.StatusWorking)
	left := 0
	for _, rec := range olds {
		if exists(rec) {
			left++
		}
	}
	if left != 1 || !exists(recent) {
		t.Fatalf("one Create left %d of 3 long-expired tasks (and the fourth due exists: %v), want 1 and the fourth: "+
			"it deletes two at most, the longest expired first", left, exists(recent))
	}
}
