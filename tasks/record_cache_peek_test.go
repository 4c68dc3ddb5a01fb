package tasks

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// ownedStore is a MemoryStore behind the Store interface alone, so that
// the Runtime does not share its records: records come to the Runtime
// through the record cache, as from Redis or PostgreSQL. It keeps each
// record the Runtime wrote.
type ownedStore struct {
	Store
	written keptRecords
}

func (s *ownedStore) Create(ctx context.Context, rec *Record, quota Quota) error {
	err := s.Store.Create(ctx, rec, quota)
	if err == nil {
		s.written.keep(rec)
	}
	return err
}

func (s *ownedStore) Update(ctx context.Context, rec *Record) error {
	err := s.Store.Update(ctx, rec)
	if err == nil {
		s.written.keep(rec)
	}
	return err
}

// The record cache hands a reader that changes nothing (peek: every Get
// and poll) its own copy, not a clone, and keeps the records the Runtime
// writes without a copy: neither a record handed out nor one written is
// changed afterwards, through a life that asks for input, is answered,
// reports progress and completes.
func TestCachedRecordsAreNeverChanged(t *testing.T) {
	store := &ownedStore{Store: NewMemoryStore()}
	rt, err := New(store, NewMemoryBus(), WithRecordCache(DefaultRecordCache),
		WithLogger(slog.New(slog.DiscardHandler)), WithProgressInterval(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	if rt.cache.shared != nil {
		t.Fatal("the Runtime shares the wrapped store's records; the test needs them owned")
	}
	var handed keptRecords // each record a reader got
	sameCopies := 0
	runAskingLife(t, rt, func(got Task) {
		peek := func() *Record {
			rec, err := rt.cache.peek(context.Background(), got.ID, false)
			if err != nil {
				t.Fatal(err)
			}
			handed.keep(rec)
			return rec
		}
		if first, second := peek(), peek(); first == second {
			sameCopies++
		}
	})
	if sameCopies == 0 {
		t.Error("two reads in a row of a cached task never returned the cache's own copy: every read cloned it")
	}
	handed.checkUnchanged(t, "handed to a reader", 2)
	store.written.checkUnchanged(t, "the Runtime wrote (and the cache keeps)", 4)
}
