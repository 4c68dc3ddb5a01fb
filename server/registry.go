package server

import (
	"slices"
	"sort"
	"sync"
)

// registry holds named features (tools, prompts, resources, templates) in
// registration order. It is safe for registration while serving. Each entry
// gets a sequence number when first added; lists are ordered by it and
// pagination cursors name the last sequence number returned, so a page
// boundary survives additions and removals elsewhere in the list.
type registry[T any] struct {
	mu     sync.RWMutex
	byName map[string]*entry[T]
	order  []*entry[T] // ascending seq
	seq    uint64
}

// entry is one registered feature.
type entry[T any] struct {
	seq uint64
	val T
}

// put adds v under name, or replaces the value already there in place (it
// keeps its position in the list).
func (r *registry[T]) put(name string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byName[name]; ok {
		// Replace the entry rather than mutate it: readers may hold it.
		ne := &entry[T]{seq: e.seq, val: v}
		r.byName[name] = ne
		i := r.index(e.seq)
		r.order[i] = ne
		return
	}
	if r.byName == nil {
		r.byName = make(map[string]*entry[T])
	}
	r.seq++
	e := &entry[T]{seq: r.seq, val: v}
	r.byName[name] = e
	r.order = append(r.order, e)
}

// remove deletes the named entries and reports whether any existed.
func (r *registry[T]) remove(names ...string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	removed := false
	for _, name := range names {
		e, ok := r.byName[name]
		if !ok {
			continue
		}
		delete(r.byName, name)
		i := r.index(e.seq)
		r.order = slices.Delete(r.order, i, i+1)
		removed = true
	}
	return removed
}

// index returns the position of seq in order; the caller holds mu and knows
// seq is present.
func (r *registry[T]) index(seq uint64) int {
	return sort.Search(len(r.order), func(i int) bool { return r.order[i].seq >= seq })
}

// get returns the value registered under name.
func (r *registry[T]) get(name string) (T, bool) {
	r.mu.RLock()
	e, ok := r.byName[name]
	r.mu.RUnlock()
	if !ok {
		var zero T
		return zero, false
	}
	return e.val, true
}

// getVisible returns the value registered under name, if keep (nil: keep
// all) keeps it: a value it drops is as absent.
func (r *registry[T]) getVisible(name string, keep func(T) bool) (T, bool) {
	v, ok := r.get(name)
	if ok && keep != nil && !keep(v) {
		var zero T
		return zero, false
	}
	return v, ok
}

// len returns how many entries there are.
func (r *registry[T]) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.order)
}

// page returns up to n values registered after sequence number after (0:
// from the start), the sequence number of the last one returned, and whether
// more follow. n <= 0 means all.
func (r *registry[T]) page(after uint64, n int) (vals []T, last uint64, more bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	start := sort.Search(len(r.order), func(i int) bool { return r.order[i].seq > after })
	end := len(r.order)
	if n > 0 && start+n < end {
		end = start + n
		more = true
	}
	vals = make([]T, 0, end-start)
	for _, e := range r.order[start:end] {
		vals = append(vals, e.val)
	}
	if end > start {
		last = r.order[end-1].seq
	}
	return vals, last, more
}

// pageVisible is page over the values keep (nil: keep all) keeps, as if
// the others were not registered. keep runs without the registry's lock
// held, so it may use the server.
func (r *registry[T]) pageVisible(after uint64, n int, keep func(T) bool) (vals []T, last uint64, more bool) {
	if keep == nil {
		return r.page(after, n)
	}
	r.mu.RLock()
	start := sort.Search(len(r.order), func(i int) bool { return r.order[i].seq > after })
	rest := slices.Clone(r.order[start:])
	r.mu.RUnlock()
	for _, e := range rest {
		if !keep(e.val) {
			continue
		}
		if n > 0 && len(vals) == n {
			return vals, last, true
		}
		vals = append(vals, e.val)
		last = e.seq
	}
	return vals, last, false
}

// all returns every value in registration order.
func (r *registry[T]) all() []T {
	vals, _, _ := r.page(0, 0)
	return vals
}
