package streamable

import (
	"context"
	"fmt"
	"sync"
)

// DefaultEventStoreBytes bounds the data a MemoryEventStore made by
// NewMemoryEventStore(0) keeps.
const DefaultEventStoreBytes = 8 << 20

// MemoryEventStore is an EventStore in memory, bounded in bytes: once the
// stored data passes the bound, the oldest events (of any session) are
// dropped, and a client resuming before them gets ErrEventsGone.
type MemoryEventStore struct {
	max int

	mu       sync.Mutex
	sessions map[string]map[int64]*eventLog
	order    []eventRef // every stored event, oldest first; some may be dead
	head     int        // order[head:] is the live part of the queue
	dead     int        // entries in order[head:] whose event was deleted
	bytes    int        // data held by live events
}

// eventLog is the stored tail of one stream: events first, first+1, ….
type eventLog struct {
	first uint64
	data  [][]byte
}

// eventRef names one stored event in the eviction queue.
type eventRef struct {
	session string
	stream  int64
	index   uint64
}

// NewMemoryEventStore returns a store that keeps at most maxBytes of event
// data (DefaultEventStoreBytes when maxBytes <= 0).
func NewMemoryEventStore(maxBytes int) *MemoryEventStore {
	if maxBytes <= 0 {
		maxBytes = DefaultEventStoreBytes
	}
	return &MemoryEventStore{max: maxBytes, sessions: make(map[string]map[int64]*eventLog)}
}

// Append stores a copy of data, dropping the oldest events if the bound is
// passed. An event larger than the whole bound is not kept (resuming before
// it reports ErrEventsGone).
func (s *MemoryEventStore) Append(_ context.Context, session string, stream int64, index uint64, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	streams := s.sessions[session]
	if streams == nil {
		streams = make(map[int64]*eventLog)
		s.sessions[session] = streams
	}
	log := streams[stream]
	if log == nil {
		log = &eventLog{first: index}
		streams[stream] = log
	}
	if want := log.first + uint64(len(log.data)); index != want {
		return fmt.Errorf("streamable: event %d of stream %d appended out of order (expected %d)", index, stream, want)
	}
	log.data = append(log.data, append([]byte(nil), data...))
	s.order = append(s.order, eventRef{session: session, stream: stream, index: index})
	s.bytes += len(data)
	for s.bytes > s.max && s.head < len(s.order) {
		s.evictOldest()
	}
	s.compact()
	return nil
}

// evictOldest drops the event at the head of the queue, if still stored.
func (s *MemoryEventStore) evictOldest() {
	ref := s.order[s.head]
	s.order[s.head] = eventRef{}
	s.head++
	log := s.sessions[ref.session][ref.stream]
	if log == nil || len(log.data) == 0 || log.first != ref.index {
		s.dead--
		return
	}
	s.bytes -= len(log.data[0])
	log.data[0] = nil
	log.data = log.data[1:]
	log.first++
}

// compact reclaims the queue's dead and consumed entries once they are the
// larger part of it.
func (s *MemoryEventStore) compact() {
	if s.head+s.dead < 1024 || s.head+s.dead < len(s.order)/2 {
		return
	}
	live := make([]eventRef, 0, len(s.order)-s.head-s.dead)
	for _, ref := range s.order[s.head:] {
		if log := s.sessions[ref.session][ref.stream]; log != nil && ref.index >= log.first {
			live = append(live, ref)
		}
	}
	s.order, s.head, s.dead = live, 0, 0
}

// After returns the events of the stream after index.
func (s *MemoryEventStore) After(_ context.Context, session string, stream int64, index uint64) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	log := s.sessions[session][stream]
	if log == nil {
		return nil, nil
	}
	if index+1 < log.first {
		return nil, fmt.Errorf("%w: stream %d keeps events from %d on, but event %d was asked for", ErrEventsGone, stream, log.first, index+1)
	}
	skip := index + 1 - log.first
	if skip >= uint64(len(log.data)) {
		return nil, nil
	}
	return append([][]byte(nil), log.data[skip:]...), nil
}

// DeleteSession forgets every event of session.
func (s *MemoryEventStore) DeleteSession(_ context.Context, session string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, log := range s.sessions[session] {
		for _, d := range log.data {
			s.bytes -= len(d)
		}
		s.dead += len(log.data)
	}
	delete(s.sessions, session)
	s.compact()
	return nil
}
