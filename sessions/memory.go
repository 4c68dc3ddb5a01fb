package sessions

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemoryStore is a Store in the memory of one process: the Handlers of one
// process that share it serve each other's sessions. Create one with
// NewMemoryStore.
type MemoryStore struct {
	mu   sync.Mutex
	m    map[string]*Record
	subs map[string][]string // URI → IDs of the live sessions subscribed to it, sorted
	key  []byte
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{m: make(map[string]*Record), subs: make(map[string][]string)}
}

// Create implements Store.
func (s *MemoryStore) Create(ctx context.Context, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sessions: create: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[rec.ID]; ok {
		return fmt.Errorf("%w: %s", ErrExists, rec.ID)
	}
	c := rec.Clone()
	s.m[rec.ID] = c
	for _, uri := range c.Subscriptions {
		s.indexLocked(uri, c.ID)
	}
	return nil
}

// Get implements Store.
func (s *MemoryStore) Get(ctx context.Context, id string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sessions: get: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.m[id]
	if !ok {
		return nil, ErrNotFound
	}
	return rec.Clone(), nil
}

// Touch implements Store.
func (s *MemoryStore) Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sessions: touch: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.m[id]
	if !ok {
		return nil, ErrNotFound
	}
	if !rec.Ended && rec.LastSeen.Before(now.Add(-every)) {
		rec.LastSeen = now
	}
	return rec.Clone(), nil
}

// indexLocked adds the session to the subscribers of uri.
func (s *MemoryStore) indexLocked(uri, id string) {
	ids := s.subs[uri]
	if i, found := slices.BinarySearch(ids, id); !found {
		s.subs[uri] = slices.Insert(ids, i, id)
	}
}

// unindexLocked removes the session from the subscribers of uri.
func (s *MemoryStore) unindexLocked(uri, id string) {
	ids := s.subs[uri]
	i, found := slices.BinarySearch(ids, id)
	switch {
	case !found:
	case len(ids) == 1:
		delete(s.subs, uri)
	default:
		s.subs[uri] = slices.Delete(ids, i, i+1)
	}
}

// live runs fn on the live session with the ID, under the lock, and
// returns a copy of the session after it, its LastSeen moved to now
// unless later.
func (s *MemoryStore) live(ctx context.Context, op, id string, now time.Time, fn func(*Record)) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sessions: %s: %w", op, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.m[id]
	if !ok || rec.Ended {
		return nil, ErrNotFound
	}
	fn(rec)
	if now.After(rec.LastSeen) {
		rec.LastSeen = now
	}
	return rec.Clone(), nil
}

// SetLevel implements Store.
func (s *MemoryStore) SetLevel(ctx context.Context, id, level string, now time.Time) (*Record, error) {
	return s.live(ctx, "set level", id, now, func(r *Record) { r.Level = level })
}

// Subscribe implements Store.
func (s *MemoryStore) Subscribe(ctx context.Context, id, uri string, now time.Time) (*Record, error) {
	return s.live(ctx, "subscribe", id, now, func(r *Record) {
		if !slices.Contains(r.Subscriptions, uri) {
			r.Subscriptions = append(r.Subscriptions, uri)
			s.indexLocked(uri, id)
		}
	})
}

// Unsubscribe implements Store.
func (s *MemoryStore) Unsubscribe(ctx context.Context, id, uri string, now time.Time) (*Record, error) {
	return s.live(ctx, "unsubscribe", id, now, func(r *Record) {
		r.Subscriptions = slices.DeleteFunc(r.Subscriptions, func(u string) bool { return u == uri })
		s.unindexLocked(uri, id)
	})
}

// End implements Store.
func (s *MemoryStore) End(ctx context.Context, id, principal string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sessions: end: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.m[id]
	if !ok || rec.Ended || rec.Principal != principal {
		return ErrNotFound
	}
	for _, uri := range rec.Subscriptions {
		s.unindexLocked(uri, id)
	}
	rec.Ended = true
	rec.LastSeen = EndedLastSeen
	return nil
}

// Expire implements Store.
func (s *MemoryStore) Expire(ctx context.Context, idleBefore time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sessions: expire: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id, rec := range s.m {
		if len(ids) >= limit {
			break
		}
		if rec.LastSeen.Before(idleBefore) {
			ids = append(ids, id)
			delete(s.m, id)
			if !rec.Ended {
				for _, uri := range rec.Subscriptions {
					s.unindexLocked(uri, id)
				}
			}
		}
	}
	return ids, nil
}

// Subscribers implements Store.
func (s *MemoryStore) Subscribers(ctx context.Context, uri, after string, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sessions: subscribers: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := s.subs[uri]
	i, found := slices.BinarySearch(ids, after)
	if found {
		i++
	}
	page := ids[i:min(i+max(limit, 0), len(ids))]
	if len(page) == 0 {
		return nil, nil
	}
	return slices.Clone(page), nil
}

// StateKey implements Store.
func (s *MemoryStore) StateKey(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sessions: state key: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key == nil {
		s.key = NewKey()
	}
	return slices.Clone(s.key), nil
}

// NewKey returns 32 bytes from crypto/rand: a state key for a driver's
// StateKey to store.
func NewKey() []byte {
	key := make([]byte, 32)
	rand.Read(key) // never fails (Go 1.24+ crashes the program instead)
	return key
}
