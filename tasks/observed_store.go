package tasks

import (
	"context"
	"time"
)

// observedStore times every call to the Store it wraps for the Observer.
type observedStore struct {
	store Store
	obs   Observer
}

func (s observedStore) Create(ctx context.Context, rec *Record, quota Quota) error {
	start := time.Now()
	err := s.store.Create(ctx, rec, quota)
	s.obs.StoreCall("Create", time.Since(start), err)
	return err
}

func (s observedStore) Get(ctx context.Context, id string) (*Record, error) {
	start := time.Now()
	rec, err := s.store.Get(ctx, id)
	s.obs.StoreCall("Get", time.Since(start), err)
	return rec, err
}

func (s observedStore) Update(ctx context.Context, rec *Record) error {
	start := time.Now()
	err := s.store.Update(ctx, rec)
	s.obs.StoreCall("Update", time.Since(start), err)
	return err
}

func (s observedStore) Delete(ctx context.Context, id string) error {
	start := time.Now()
	err := s.store.Delete(ctx, id)
	s.obs.StoreCall("Delete", time.Since(start), err)
	return err
}

func (s observedStore) List(ctx context.Context, principal, cursor string, limit int) ([]*Record, string, error) {
	start := time.Now()
	recs, next, err := s.store.List(ctx, principal, cursor, limit)
	s.obs.StoreCall("List", time.Since(start), err)
	return recs, next, err
}

func (s observedStore) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	start := time.Now()
	ids, err := s.store.Expired(ctx, now, limit)
	s.obs.StoreCall("Expired", time.Since(start), err)
	return ids, err
}

func (s observedStore) LeaseExpired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	start := time.Now()
	ids, err := s.store.LeaseExpired(ctx, now, limit)
	s.obs.StoreCall("LeaseExpired", time.Since(start), err)
	return ids, err
}

func (s observedStore) DeleteExpired(ctx context.Context, now time.Time, limit int) ([]DeletedTask, error) {
	start := time.Now()
	gone, err := s.store.DeleteExpired(ctx, now, limit)
	s.obs.StoreCall("DeleteExpired", time.Since(start), err)
	return gone, err
}
