package tasks

import (
	"context"
	"errors"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
)

// DefaultRecordCache is how many task records a Runtime keeps in memory
// by default (see WithRecordCache).
const DefaultRecordCache = 4096

// recordCache is this instance's copy of the task records it has read or
// written lately, so that reading a task that has not changed costs no
// store round trip: back-to-back polls of a running task, and its result
// once it has finished, are answered from memory.
//
// A copy is trusted while no signal about the task has come since it was
// read or written. The cache subscribes to a task's signals before it
// first reads or creates it, so no change after that read goes unnoticed;
// a finished record is final and is kept without a subscription (expiry is
// checked by every reader against ExpiresAt). Copies only move forward in
// Version, so a reader on this instance never sees a task go back to a
// state older than one this instance has shown.
//
// Another instance's change reaches this cache with its signal, which on
// the drivers built on RelayBus is on its way to every instance before the
// writer's Publish returns, so before the writer's client hears of the
// change. On its way is not arrived: a client that changes a task through
// one instance and at once reads it through another can see the old state
// for as long as the signal takes to be read (well under a millisecond on
// an idle machine; tens of milliseconds were seen on a loaded one). On a
// Bus that polls (SQLite across processes), a copy may lag the store by up
// to the Bus's poll interval.
type recordCache struct {
	store Store
	bus   Bus
	limit int // records kept at most; 0 turns the cache off
	// shared is the store's sharedRecords while the cache is off: reads
	// then take the stored record itself instead of a copy.
	shared sharedRecords

	mu      sync.Mutex
	entries map[string]*cacheEntry
	closed  bool
}

// cacheEntry is the cache's copy of one task.
type cacheEntry struct {
	rec   *Record      // the latest copy, never changed once kept (peek hands it out); nil until read
	fresh bool         // no signal since rec was read or written
	gen   uint64       // signals from other writers so far
	own   int          // this instance's own signals still to arrive
	sub   Subscription // nil once the record has finished
	// inline reports that signals arrive on the publisher's goroutine, so
	// this instance's own signals can be told apart and need not make the
	// copy it has just written stale.
	inline bool
}

func newRecordCache(store Store, bus Bus, limit int) *recordCache {
	c := &recordCache{store: store, bus: bus, limit: limit, entries: make(map[string]*cacheEntry)}
	if limit == 0 {
		c.shared = sharing(store)
	}
	return c
}

// cacheMark is where a reader's copy of a task stood in the cache: the
// entry it came through and that entry's signal count at the read. A
// write made from the copy is trusted only if the same entry has counted
// no signal since: another entry for the task, made after this one was
// evicted, counts signals of its own.
type cacheMark struct {
	e   *cacheEntry // nil when the cache is off or could not follow the task
	gen uint64
}

// follow returns the task's entry, subscribing it to the task's signals
// if it is new, with the entry's signal count; a mark without an entry
// when the cache is off, closed, or the subscription failed (then reads
// go to the store).
func (c *recordCache) follow(ctx context.Context, id string) cacheMark {
	if c.limit == 0 {
		return cacheMark{}
	}
	c.mu.Lock()
	if e := c.entries[id]; e != nil {
		gen := e.gen
		c.mu.Unlock()
		return cacheMark{e, gen}
	}
	c.mu.Unlock()
	e := &cacheEntry{}
	// A task's creation is the one change that no copy of it can predate:
	// its created signal leaves the copy trusted.
	sub, inline, err := subscribeFunc(ctx, c.bus, id, func(s Signal) {
		if s.Kind != SignalCreated {
			c.signalled(e)
		}
	})
	if err != nil {
		return cacheMark{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if other := c.entries[id]; c.closed || other != nil {
		sub.Close()
		if c.closed {
			return cacheMark{}
		}
		return cacheMark{other, other.gen}
	}
	e.sub, e.inline = sub, inline
	c.evictLocked()
	c.entries[id] = e
	return cacheMark{e, e.gen}
}

// forget drops the task's entry, if it is still e: the task is not in the
// store, and an entry kept for it would only hold a subscription and push
// a real task out.
func (c *recordCache) forget(id string, e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[id] != e {
		return
	}
	if e.sub != nil {
		e.sub.Close()
		e.sub = nil
	}
	delete(c.entries, id)
}

// signalled marks the entry stale, unless the signal is this instance's
// own about a copy it wrote.
func (c *recordCache) signalled(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.own > 0 {
		e.own--
		return
	}
	e.gen++
	e.fresh = false
}

// evictLocked makes room for one entry.
func (c *recordCache) evictLocked() {
	for id, e := range c.entries {
		if len(c.entries) < c.limit {
			return
		}
		if e.sub != nil {
			e.sub.Close()
			e.sub = nil
		}
		delete(c.entries, id)
	}
}

// read returns a private copy of the task's record: the cache's while it
// is fresh (unless fresh is asked for), else the store's, which the cache
// then keeps. It also returns where the copy stood in the cache, for
// wrote, and whether the copy came from the cache.
func (c *recordCache) read(ctx context.Context, id string, fresh bool) (rec *Record, mark cacheMark, cached bool, err error) {
	return c.get(ctx, id, fresh, false)
}

// peek is read for a reader that changes nothing of the record it gets,
// which may then be the store's own (see sharedRecords) or the cache's:
// the cache replaces its record on a change, never writes into it. A
// poll answered from the cache then copies nothing (one Clone a poll on
// Redis and PostgreSQL, BenchmarkPolledTaskLife).
func (c *recordCache) peek(ctx context.Context, id string, fresh bool) (*Record, error) {
	if c.shared != nil {
		return c.shared.getShared(ctx, id)
	}
	rec, _, _, err := c.get(ctx, id, fresh, true)
	return rec, err
}

// get is read, or peek when shared is set: the record returned may then
// be the one the cache keeps.
func (c *recordCache) get(ctx context.Context, id string, fresh, shared bool) (rec *Record, mark cacheMark, cached bool, err error) {
	if c.shared != nil {
		rec, err := c.shared.getShared(ctx, id)
		if err != nil {
			return nil, cacheMark{}, false, err
		}
		return ownCopy(rec), cacheMark{}, false, nil
	}
	if c.limit > 0 {
		c.mu.Lock()
		if e := c.entries[id]; e != nil {
			if !fresh && e.fresh && e.rec != nil {
				rec, mark := e.rec, cacheMark{e, e.gen}
				c.mu.Unlock()
				if !shared {
					rec = rec.Clone()
				}
				return rec, mark, true, nil
			}
			mark = cacheMark{e, e.gen}
		}
		c.mu.Unlock()
		if mark.e == nil {
			mark = c.follow(ctx, id) // before the read, so no later change is missed
		}
	}
	jsonrpc.MayWait(ctx)
	rec, err = c.store.Get(ctx, id)
	if err != nil {
		if mark.e != nil && errors.Is(err, ErrNotFound) {
			c.forget(id, mark.e)
		}
		return nil, cacheMark{}, false, err
	}
	return c.keep(mark, rec, shared), mark, false, nil
}

// keep records rec, read from the store at mark, and returns what the
// reader gets: rec, or the cache's copy if that is newer. When shared, the
// reader changes nothing, so the cache keeps rec itself and may hand out
// its own.
func (c *recordCache) keep(mark cacheMark, rec *Record, shared bool) *Record {
	e := mark.e
	if e == nil {
		return rec
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.rec != nil && e.rec.Version > rec.Version {
		if shared {
			return e.rec
		}
		return e.rec.Clone() // never back to an older state
	}
	if shared {
		e.rec = rec
	} else {
		e.rec = rec.Clone()
	}
	e.fresh = e.gen == mark.gen
	c.settleLocked(e)
	return rec
}

// wrote records rec, which this instance has just written, created or
// updated from a copy read at mark. The
// Runtime never changes a record once written (a store's shared records
// rely on it: TestSharedRecordsAreNeverChanged, and this cache:
// TestCachedRecordsAreNeverChanged), so the cache keeps rec
// itself: one Clone less a write.
func (c *recordCache) wrote(rec *Record, mark cacheMark) {
	if c.limit == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[rec.ID]
	if e == nil || (e.rec != nil && e.rec.Version >= rec.Version) {
		return
	}
	e.rec = rec
	// A signal since the read may be about a change after this write; an
	// entry made since the read has counted signals of its own, and this
	// write's own signal may yet be taken for one it expects.
	e.fresh = e == mark.e && e.gen == mark.gen
	c.settleLocked(e)
}

// settleLocked ends the subscription of an entry whose record has
// finished: it can no longer change.
func (c *recordCache) settleLocked(e *cacheEntry) {
	if !e.rec.Status.Terminal() {
		return
	}
	e.fresh = true
	if e.sub != nil {
		e.sub.Close()
		e.sub = nil
	}
}

// inline reports whether the task's copy is kept fresh by signals that
// arrive on the publisher's goroutine, before any channel subscription
// receives them: then a watcher woken by a signal may read the cache.
func (c *recordCache) inline(id string) bool {
	if c.limit == 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[id]
	return e != nil && (e.inline || (e.rec != nil && e.rec.Status.Terminal()))
}

// publishing tells the cache that this instance is about to publish a
// signal about the task, after writing it.
func (c *recordCache) publishing(id string) {
	if c.limit == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[id]; e != nil && e.inline && e.sub != nil {
		e.own++
	}
}

// publishFailed undoes publishing after a failed Publish: whether the
// signal arrived is unknown, so the copy is no longer trusted.
func (c *recordCache) publishFailed(id string) {
	if c.limit == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[id]; e != nil && e.sub != nil {
		e.own, e.fresh = 0, false
	}
}

// close ends every subscription and empties the cache for good.
func (c *recordCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for id, e := range c.entries {
		if e.sub != nil {
			e.sub.Close()
		}
		delete(c.entries, id)
	}
}
