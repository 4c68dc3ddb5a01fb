package tasks

import (
	"context"
	"slices"
	"time"
)

// sharedRecords is a Store that never changes a record once it holds it
// (an Update stores a new record in its place), so the Runtime may read
// and write its records without the copies the Store contract promises
// every other caller: MemoryStore, whose copies were 10 allocations and
// five copies of the params and result of every legacy task life
// (Record.Clone on Create, Update and three Gets), 9 net of the one
// ownCopy takes (BenchmarkTaskLifeCost: 169 → 160).
// The Runtime only ever changes a private shallow copy (ownCopy), and
// replaces byte slices rather than writing into them.
type sharedRecords interface {
	// getShared returns the stored record itself, or ErrNotFound. The
	// caller must not change it or the bytes it holds.
	getShared(ctx context.Context, id string) (*Record, error)
	// createShared is Create keeping rec itself, which the caller must not
	// change afterwards.
	createShared(ctx context.Context, rec *Record, quota Quota) error
	// updateShared is Update keeping rec itself, which the caller must not
	// change afterwards.
	updateShared(ctx context.Context, rec *Record) error
}

// ownCopy returns a copy of a shared record that the caller may change
// field by field: the bytes it holds are still shared, so a change
// replaces a slice and never writes into one. Inputs is copied, since a
// change may set an input's Response in place.
func ownCopy(rec *Record) *Record {
	c := *rec
	c.Inputs = slices.Clone(rec.Inputs)
	return &c
}

// sharing returns the store's sharedRecords, if it has them.
func sharing(store Store) sharedRecords {
	s, _ := store.(sharedRecords)
	return s
}

// observedSharingStore is the observedStore of a store with
// sharedRecords, timing those calls too.
type observedSharingStore struct {
	observedStore
	shared sharedRecords
}

// getShared implements sharedRecords.
func (s observedSharingStore) getShared(ctx context.Context, id string) (*Record, error) {
	start := time.Now()
	rec, err := s.shared.getShared(ctx, id)
	s.obs.StoreCall("Get", time.Since(start), err)
	return rec, err
}

// createShared implements sharedRecords.
func (s observedSharingStore) createShared(ctx context.Context, rec *Record, quota Quota) error {
	start := time.Now()
	err := s.shared.createShared(ctx, rec, quota)
	s.obs.StoreCall("Create", time.Since(start), err)
	return err
}

// updateShared implements sharedRecords.
func (s observedSharingStore) updateShared(ctx context.Context, rec *Record) error {
	start := time.Now()
	err := s.shared.updateShared(ctx, rec)
	s.obs.StoreCall("Update", time.Since(start), err)
	return err
}
