package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// CountingStore is a Store that counts the calls made to the Store it
// wraps, by operation, so a test or benchmark can assert how many store
// round trips something costs.
type CountingStore struct {
	tasks.Store
	creates, gets, updates, deletes, lists, sweeps atomic.Int64
}

// StoreOps is how many calls of each kind a CountingStore has seen.
type StoreOps struct {
	Create, Get, Update, Delete, List int64
	// Sweep counts Expired, DeleteExpired and LeaseExpired: the background
	// sweeps, not a task's own life.
	Sweep int64
}

// Total is the number of calls a task's life made: every operation but the
// background sweeps.
func (o StoreOps) Total() int64 { return o.Create + o.Get + o.Update + o.Delete + o.List }

// String lists the counts.
func (o StoreOps) String() string {
	return fmt.Sprintf("create %d, get %d, update %d, delete %d, list %d (sweeps %d)",
		o.Create, o.Get, o.Update, o.Delete, o.List, o.Sweep)
}

// Sub returns the calls made since before was taken.
func (o StoreOps) Sub(before StoreOps) StoreOps {
	return StoreOps{Create: o.Create - before.Create, Get: o.Get - before.Get, Update: o.Update - before.Update,
		Delete: o.Delete - before.Delete, List: o.List - before.List, Sweep: o.Sweep - before.Sweep}
}

// Ops returns the counts so far.
func (s *CountingStore) Ops() StoreOps {
	return StoreOps{Create: s.creates.Load(), Get: s.gets.Load(), Update: s.updates.Load(),
		Delete: s.deletes.Load(), List: s.lists.Load(), Sweep: s.sweeps.Load()}
}

// Create counts the call and passes it on.
func (s *CountingStore) Create(ctx context.Context, rec *tasks.Record, q tasks.Quota) error {
	s.creates.Add(1)
	return s.Store.Create(ctx, rec, q)
}

// Get counts the call and passes it on.
func (s *CountingStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, id)
}

// Update counts the call and passes it on.
func (s *CountingStore) Update(ctx context.Context, rec *tasks.Record) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, rec)
}

// Delete counts the call and passes it on.
func (s *CountingStore) Delete(ctx context.Context, id string) error {
	s.deletes.Add(1)
	return s.Store.Delete(ctx, id)
}

// List counts the call and passes it on.
func (s *CountingStore) List(ctx context.Context, principal, cursor string, limit int) ([]*tasks.Record, string, error) {
	s.lists.Add(1)
	return s.Store.List(ctx, principal, cursor, limit)
}

// Expired counts the call as a sweep and passes it on.
func (s *CountingStore) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	s.sweeps.Add(1)
	return s.Store.Expired(ctx, now, limit)
}

// DeleteExpired counts the call as a sweep and passes it on.
func (s *CountingStore) DeleteExpired(ctx context.Context, now time.Time, limit int) ([]tasks.DeletedTask, error) {
	s.sweeps.Add(1)
	return s.Store.DeleteExpired(ctx, now, limit)
}

// LeaseExpired counts the call as a sweep and passes it on.
func (s *CountingStore) LeaseExpired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	s.sweeps.Add(1)
	return s.Store.LeaseExpired(ctx, now, limit)
}
