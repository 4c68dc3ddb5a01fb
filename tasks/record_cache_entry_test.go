package tasks

import (
	"context"
	"errors"
	"testing"
	"time"
)

// storedRecord creates a working task id directly in store, as another
// instance would.
func storedRecord(t *testing.T, store Store, id string) *Record {
	t.Helper()
	now := time.Now()
	rec := &Record{ID: id, Principal: "alice", Method: "tools/call", Name: "job", Status: StatusWorking, CreatedAt: now, UpdatedAt: now}
	if err := store.Create(context.Background(), rec, Quota{}); err != nil {
		t.Fatal(err)
	}
	return rec
}

// A read of a task that does not exist leaves nothing behind: before, each
// unknown ID kept an entry and its bus subscription, so a client polling
// made-up IDs pushed the real tasks out of the cache.
func TestCacheKeepsNothingForAnUnknownTask(t *testing.T) {
	store, bus := NewMemoryStore(), NewMemoryBus()
	c := newRecordCache(store, bus, 8)
	ctx := context.Background()
	if _, _, _, err := c.read(ctx, "no-such-task", false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read of an unknown task: %v, want ErrNotFound", err)
	}
	if n := len(c.entries); n != 0 {
		t.Errorf("the cache holds %d entries after reading an unknown task, want 0", n)
	}
	bus.mu.Lock()
	subs := len(bus.funcs["no-such-task"])
	bus.mu.Unlock()
	if subs != 0 {
		t.Errorf("%d bus subscriptions left for the unknown task, want 0", subs)
	}
}

// A write made from a copy read through an entry since evicted does not
// make the task's new entry trusted, even when the two entries have
// counted the same number of signals: before, the count alone was
// compared, and the new entry served the write's record for good while
// another instance's later change sat in the store.
func TestCacheWriteFromAnEvictedEntryIsNotTrusted(t *testing.T) {
	store, bus := NewMemoryStore(), NewMemoryBus()
	c := newRecordCache(store, bus, 1)
	ctx := context.Background()
	storedRecord(t, store, "a")
	storedRecord(t, store, "b")
	signal := func() {
		if err := bus.Publish(ctx, Signal{TaskID: "a", Kind: SignalStatus}); err != nil {
			t.Fatal(err)
		}
	}
	update := func(rec *Record, status Status) *Record {
		next := rec.Clone()
		next.Status, next.UpdatedAt = status, time.Now()
		if err := store.Update(ctx, next); err != nil {
			t.Fatal(err)
		}
		return next
	}

	// This instance's entry for a counts one signal, then reads a afresh:
	// its write below starts from that read.
	if _, _, _, err := c.read(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	signal()
	rec, mark, _, err := c.read(ctx, "a", false)
	if err != nil {
		t.Fatal(err)
	}
	// b takes the only place, then a comes back in a new entry.
	if _, _, _, err := c.read(ctx, "b", false); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.read(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	// This instance writes, another instance then finishes the task and
	// signals it: the new entry has counted one signal too.
	mine := update(rec, StatusInputRequired)
	update(mine, StatusCancelled)
	signal()
	c.wrote(mine, mark)

	got, _, _, err := c.read(ctx, "a", false)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusCancelled {
		t.Errorf("read after another instance's change: %s, want cancelled", got.Status)
	}
}
