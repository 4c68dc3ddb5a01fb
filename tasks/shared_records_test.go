package tasks

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// keepingStore is a MemoryStore that keeps every record it shares with
// the Runtime.
type keepingStore struct {
	*MemoryStore
	shared keptRecords
}

func (s *keepingStore) getShared(ctx context.Context, id string) (*Record, error) {
	rec, err := s.MemoryStore.getShared(ctx, id)
	if err == nil {
		s.shared.keep(rec)
	}
	return rec, err
}

func (s *keepingStore) createShared(ctx context.Context, rec *Record, quota Quota) error {
	err := s.MemoryStore.createShared(ctx, rec, quota)
	if err == nil {
		s.shared.keep(rec)
	}
	return err
}

func (s *keepingStore) updateShared(ctx context.Context, rec *Record) error {
	err := s.MemoryStore.updateShared(ctx, rec)
	if err == nil {
		s.shared.keep(rec)
	}
	return err
}

// A record the Runtime shares with a MemoryStore is never changed once
// shared, through a life that asks for input, is answered, reports
// progress and completes: the Runtime changes only its own copies.
func TestSharedRecordsAreNeverChanged(t *testing.T) {
	store := &keepingStore{MemoryStore: NewMemoryStore()}
	rt, err := New(store, NewMemoryBus(), WithRecordCache(0), WithLogger(slog.New(slog.DiscardHandler)),
		WithProgressInterval(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	if rt.cache.shared == nil {
		t.Fatal("the Runtime does not share the store's records")
	}
	runAskingLife(t, rt, func(Task) {})
	store.shared.checkUnchanged(t, "shared", 4)
}
