package tasks

import (
	"container/heap"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The indexes behind MemoryStore: a min-heap per deadline (expiry, lease) so
// the sweeps cost what they find, and a per-principal list in insertion
// order so List pages are stable under inserts and deletes.

// memEntry is one stored record with its positions in the indexes.
type memEntry struct {
	rec     *Record
	seq     uint64 // insertion order, unique in the store
	heapIdx [2]int // position in each deadlineHeap, -1 when absent
}

// Which deadline a heap orders by.
const (
	expiryDeadline = 0
	leaseDeadline  = 1
)

// deadline returns the entry's time for the heap, and whether it belongs there.
func (e *memEntry) deadline(which int) (time.Time, bool) {
	r := e.rec
	if which == expiryDeadline {
		return r.ExpiresAt, !r.ExpiresAt.IsZero()
	}
	return r.LeaseExpiresAt, !r.Status.Terminal() && r.Owner != "" && !r.LeaseExpiresAt.IsZero()
}

// deadlineHeap is a min-heap of entries by one of their deadlines. Each
// item holds its deadline beside its entry, so ordering reads the heap's
// own array: through the entry and its record, every comparison with an
// old task's item missed the cache twice, and a task's creation and
// outcome each compare with one (the deadline heaps were 3% of the CPU of
// an extension task life over stdio at 32 in flight, with a row's
// finished tasks kept for their hour).
type deadlineHeap struct {
	which int
	items []heapItem
}

// heapItem is an entry in a deadlineHeap, at the deadline it is ordered by.
type heapItem struct {
	at time.Time
	e  *memEntry
}

func (h *deadlineHeap) Len() int           { return len(h.items) }
func (h *deadlineHeap) Less(i, j int) bool { return h.items[i].at.Before(h.items[j].at) }
func (h *deadlineHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].e.heapIdx[h.which] = i
	h.items[j].e.heapIdx[h.which] = j
}

// Push is heap.Interface's; sync adds an item itself, without boxing it.
func (h *deadlineHeap) Push(x any) { h.add(x.(heapItem)) }

// add appends the item at the end of the heap's array, where a sift up
// places it.
func (h *deadlineHeap) add(it heapItem) {
	it.e.heapIdx[h.which] = len(h.items)
	h.items = append(h.items, it)
}

// Pop is heap.Interface's. It returns the last item's entry: the item
// itself, boxed, would be an allocation for every removal.
func (h *deadlineHeap) Pop() any {
	n := len(h.items) - 1
	e := h.items[n].e
	h.items[n] = heapItem{}
	h.items = h.items[:n]
	e.heapIdx[h.which] = -1
	return e
}

// sync puts the entry where its current deadline says: in the heap at the
// right place, or out of it. An entry whose deadline has not changed (the
// expiry, on every write but the creation) stays put without a comparison.
func (h *deadlineHeap) sync(e *memEntry) {
	at, want := e.deadline(h.which)
	idx := e.heapIdx[h.which]
	switch {
	case want && idx < 0:
		h.add(heapItem{at: at, e: e})
		heap.Fix(h, len(h.items)-1)
	case want && h.items[idx].at.Equal(at):
	case want:
		h.items[idx].at = at
		heap.Fix(h, idx)
	case idx >= 0:
		heap.Remove(h, idx)
	}
}

// remove takes the entry out of the heap if it is there.
func (h *deadlineHeap) remove(e *memEntry) {
	if idx := e.heapIdx[h.which]; idx >= 0 {
		heap.Remove(h, idx)
	}
}

// due returns the IDs of up to limit entries whose deadline is not after
// now and whose record matches (every record, if match is nil). It walks
// only the part of the heap that is due.
func (h *deadlineHeap) due(now time.Time, limit int, match func(*Record) bool) []string {
	var ids []string
	stack := []int{0}
	for len(stack) > 0 && len(ids) < limit {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i >= len(h.items) {
			continue
		}
		it := h.items[i]
		if it.at.After(now) {
			continue // and so is every descendant
		}
		if match == nil || match(it.e.rec) {
			ids = append(ids, it.e.rec.ID)
		}
		stack = append(stack, 2*i+1, 2*i+2)
	}
	return ids
}

// principalList holds one principal's task IDs in insertion order. Deleted
// entries become tombstones, swept out once they are the majority.
type principalList struct {
	items []listItem
	dead  int
}

type listItem struct {
	seq  uint64
	id   string
	live bool
}

// add appends an entry; seq must exceed every earlier one.
func (l *principalList) add(seq uint64, id string) {
	l.items = append(l.items, listItem{seq: seq, id: id, live: true})
}

// remove marks the entry with seq deleted, compacting when tombstones
// dominate. It reports whether the list is now empty.
func (l *principalList) remove(seq uint64) bool {
	i := l.search(seq)
	if i < len(l.items) && l.items[i].seq == seq && l.items[i].live {
		l.items[i] = listItem{seq: seq}
		l.dead++
	}
	if l.dead > 32 && 2*l.dead > len(l.items) {
		live := l.items[:0]
		for _, it := range l.items {
			if it.live {
				live = append(live, it)
			}
		}
		clear(l.items[len(live):])
		l.items, l.dead = live, 0
	}
	return l.dead == len(l.items)
}

// search returns the index of the first entry with a sequence ≥ seq.
func (l *principalList) search(seq uint64) int {
	return sort.Search(len(l.items), func(i int) bool { return l.items[i].seq >= seq })
}

// page returns up to limit live IDs after the sequence `after`, the sequence
// of the last one returned, and whether any live entry follows it.
func (l *principalList) page(after uint64, limit int) (ids []string, last uint64, more bool) {
	for i := l.search(after + 1); i < len(l.items); i++ {
		it := l.items[i]
		if !it.live {
			continue
		}
		if len(ids) == limit {
			return ids, last, true
		}
		ids = append(ids, it.id)
		last = it.seq
	}
	return ids, last, false
}

// A memory cursor is "m" followed by the base-36 sequence of the last task
// returned.
const memCursorPrefix = "m"

func encodeMemCursor(seq uint64) string {
	return memCursorPrefix + strconv.FormatUint(seq, 36)
}

func decodeMemCursor(cursor string) (uint64, bool) {
	rest, ok := strings.CutPrefix(cursor, memCursorPrefix)
	if !ok || rest == "" {
		return 0, false
	}
	seq, err := strconv.ParseUint(rest, 36, 64)
	return seq, err == nil
}
