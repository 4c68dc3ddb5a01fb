package tasks

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// MemoryStore is the in-process Store: fast, exact, and gone when the process
// ends. One MemoryStore shared by several Runtimes stands for a shared
// database, which is how the runtime tests model a cluster.
type MemoryStore struct {
	mu       sync.RWMutex
	entries  map[string]*memEntry
	lists    map[string]*principalList
	all      principalList // every task, for Inventory.ListAll
	seq      uint64
	expiries deadlineHeap
	leases   deadlineHeap
	active   map[string]int // unfinished tasks per principal
	total    int            // unfinished tasks in all
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{
		entries:  make(map[string]*memEntry),
		lists:    make(map[string]*principalList),
		expiries: deadlineHeap{which: expiryDeadline},
		leases:   deadlineHeap{which: leaseDeadline},
		active:   make(map[string]int),
	}
}

// Create implements Store.
func (s *MemoryStore) Create(ctx context.Context, rec *Record, quota Quota) error {
	return s.create(ctx, rec, quota, (*Record).Clone)
}

// createShared implements sharedRecords.
func (s *MemoryStore) createShared(ctx context.Context, rec *Record, quota Quota) error {
	return s.create(ctx, rec, quota, func(rec *Record) *Record { return rec })
}

// create stores keep(rec) as a new record.
func (s *MemoryStore) create(ctx context.Context, rec *Record, quota Quota, keep func(*Record) *Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tasks: create: %w", err)
	}
	if err := CheckCreate(rec); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[rec.ID]; ok {
		return fmt.Errorf("%w: %s", ErrExists, rec.ID)
	}
	if quota.PerPrincipal > 0 && s.active[rec.Principal] >= quota.PerPrincipal {
		return &LimitError{Scope: LimitPrincipal, Limit: quota.PerPrincipal}
	}
	if quota.Total > 0 && s.total >= quota.Total {
		return &LimitError{Scope: LimitTotal, Limit: quota.Total}
	}
	rec.Version = 1
	s.seq++
	e := &memEntry{rec: keep(rec), seq: s.seq, heapIdx: [2]int{-1, -1}}
	s.entries[rec.ID] = e
	l := s.lists[rec.Principal]
	if l == nil {
		l = &principalList{}
		s.lists[rec.Principal] = l
	}
	l.add(e.seq, rec.ID)
	s.all.add(e.seq, rec.ID)
	s.expiries.sync(e)
	s.leases.sync(e)
	s.active[rec.Principal]++
	s.total++
	return nil
}

// Get implements Store.
func (s *MemoryStore) Get(ctx context.Context, id string) (*Record, error) {
	rec, err := s.getShared(ctx, id)
	if err != nil {
		return nil, err
	}
	return rec.Clone(), nil
}

// getShared implements sharedRecords: a stored record is never changed,
// only replaced.
func (s *MemoryStore) getShared(ctx context.Context, id string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: get: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[id]
	if !ok {
		return nil, ErrNotFound
	}
	return e.rec, nil
}

// Update implements Store.
func (s *MemoryStore) Update(ctx context.Context, rec *Record) error {
	return s.update(ctx, rec, false)
}

// updateShared implements sharedRecords.
func (s *MemoryStore) updateShared(ctx context.Context, rec *Record) error {
	return s.update(ctx, rec, true)
}

// update stores rec as the record's next version: rec itself when shared,
// else a copy.
func (s *MemoryStore) update(ctx context.Context, rec *Record, shared bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tasks: update: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[rec.ID]
	if !ok {
		return ErrNotFound
	}
	old := e.rec
	if err := CheckUpdate(old, rec); err != nil {
		return err
	}
	// Identity fields stay as created. The stored Params are never written,
	// so the new version shares them instead of copying them again.
	next := rec
	if !shared {
		kept := *rec
		kept.Params = nil
		next = kept.Clone()
	}
	next.Principal, next.Method, next.Name = old.Principal, old.Method, old.Name
	next.Params, next.CreatedAt, next.Policy = old.Params, old.CreatedAt, old.Policy
	next.Version = old.Version + 1
	e.rec = next
	s.expiries.sync(e)
	s.leases.sync(e)
	if next.Status.Terminal() {
		s.finished(old.Principal)
	}
	rec.Version = next.Version
	return nil
}

// Delete implements Store.
func (s *MemoryStore) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tasks: delete: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[id]
	if !ok {
		return ErrNotFound
	}
	s.remove(e)
	return nil
}

// DeleteExpired implements Store.
func (s *MemoryStore) DeleteExpired(ctx context.Context, now time.Time, limit int) ([]DeletedTask, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: delete expired: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := s.expiries.due(now, limit, func(rec *Record) bool { return rec.Status.Terminal() })
	gone := make([]DeletedTask, len(ids))
	for i, id := range ids {
		e := s.entries[id]
		gone[i] = deletedTask(e.rec)
		s.remove(e)
	}
	return gone, nil
}

// remove takes the entry out of the store and its indexes.
func (s *MemoryStore) remove(e *memEntry) {
	id := e.rec.ID
	delete(s.entries, id)
	s.expiries.remove(e)
	s.leases.remove(e)
	if l := s.lists[e.rec.Principal]; l != nil && l.remove(e.seq) {
		delete(s.lists, e.rec.Principal)
	}
	s.all.remove(e.seq)
	if !e.rec.Status.Terminal() {
		s.finished(e.rec.Principal)
	}
}

// finished takes one unfinished task of the principal off the counts.
func (s *MemoryStore) finished(principal string) {
	s.total--
	if s.active[principal]--; s.active[principal] <= 0 {
		delete(s.active, principal)
	}
}

// List implements Store.
func (s *MemoryStore) List(ctx context.Context, principal, cursor string, limit int) ([]*Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("tasks: list: %w", err)
	}
	if limit < 1 {
		return nil, "", fmt.Errorf("tasks: list: the page limit must be at least 1, not %d", limit)
	}
	var after uint64
	if cursor != "" {
		var ok bool
		if after, ok = decodeMemCursor(cursor); !ok {
			return nil, "", ErrInvalidCursor
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	l := s.lists[principal]
	if l == nil {
		return nil, "", nil
	}
	ids, last, more := l.page(after, limit)
	recs := make([]*Record, len(ids))
	for i, id := range ids {
		recs[i] = s.entries[id].rec.Clone()
	}
	if !more {
		return recs, "", nil
	}
	return recs, encodeMemCursor(last), nil
}

// Expired implements Store.
func (s *MemoryStore) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: list expired: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.expiries.due(now, limit, nil), nil
}

// LeaseExpired implements Store.
func (s *MemoryStore) LeaseExpired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: list lapsed leases: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.leases.due(now, limit, nil), nil
}
