package storetest

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// CutStore is a Store reached through a link a test can cut, as a crash
// or a network partition would: while Cut is set, every call fails with
// ErrCut, and nothing reaches the Store.
type CutStore struct {
	tasks.Store
	Cut atomic.Bool
}

// ErrCut is what a cut CutStore answers.
var ErrCut = errors.New("storetest: the link to the store is cut")

// Create fails with ErrCut while the link is cut.
func (s *CutStore) Create(ctx context.Context, rec *tasks.Record, q tasks.Quota) error {
	if s.Cut.Load() {
		return ErrCut
	}
	return s.Store.Create(ctx, rec, q)
}

// Get fails with ErrCut while the link is cut.
func (s *CutStore) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if s.Cut.Load() {
		return nil, ErrCut
	}
	return s.Store.Get(ctx, id)
}

// Update fails with ErrCut while the link is cut.
func (s *CutStore) Update(ctx context.Context, rec *tasks.Record) error {
	if s.Cut.Load() {
		return ErrCut
	}
	return s.Store.Update(ctx, rec)
}

// Delete fails with ErrCut while the link is cut.
func (s *CutStore) Delete(ctx context.Context, id string) error {
	if s.Cut.Load() {
		return ErrCut
	}
	return s.Store.Delete(ctx, id)
}

// List fails with ErrCut while the link is cut.
func (s *CutStore) List(ctx context.Context, principal, cursor string, limit int) ([]*tasks.Record, string, error) {
	if s.Cut.Load() {
		return nil, "", ErrCut
	}
	return s.Store.List(ctx, principal, cursor, limit)
}

// Expired fails with ErrCut while the link is cut.
func (s *CutStore) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if s.Cut.Load() {
		return nil, ErrCut
	}
	return s.Store.Expired(ctx, now, limit)
}

// DeleteExpired fails with ErrCut while the link is cut.
func (s *CutStore) DeleteExpired(ctx context.Context, now time.Time, limit int) ([]tasks.DeletedTask, error) {
	if s.Cut.Load() {
		return nil, ErrCut
	}
	return s.Store.DeleteExpired(ctx, now, limit)
}

// LeaseExpired fails with ErrCut while the link is cut.
func (s *CutStore) LeaseExpired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if s.Cut.Load() {
		return nil, ErrCut
	}
	return s.Store.LeaseExpired(ctx, now, limit)
}
