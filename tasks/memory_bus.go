package tasks

import (
	"context"
	"fmt"
	"sync"
)

// memSubBuffer is how many undelivered signals a MemoryBus subscription
// holds before it starts dropping the oldest.
const memSubBuffer = 16

// MemoryBus is the in-process Bus: it delivers signals to subscriptions in
// the same process, never blocking the publisher. A subscriber that falls
// behind loses its oldest signals, never its newest.
type MemoryBus struct {
	mu    sync.Mutex
	subs  map[string]map[*memSub]struct{}
	feeds map[*memSub]struct{} // SubscribeAll's subscriptions
}

// NewMemoryBus returns a MemoryBus with no subscriptions.
func NewMemoryBus() *MemoryBus {
	return &MemoryBus{subs: make(map[string]map[*memSub]struct{}), feeds: make(map[*memSub]struct{})}
}

// Publish implements Bus.
func (b *MemoryBus) Publish(ctx context.Context, s Signal) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tasks: publish: %w", err)
	}
	b.mu.Lock()
	subs := make([]*memSub, 0, len(b.subs[s.TaskID])+len(b.feeds))
	for sub := range b.subs[s.TaskID] {
		subs = append(subs, sub)
	}
	for sub := range b.feeds {
		subs = append(subs, sub)
	}
	b.mu.Unlock()
	for _, sub := range subs {
		sub.deliver(s)
	}
	return nil
}

// Subscribe implements Bus.
func (b *MemoryBus) Subscribe(ctx context.Context, taskID string) (Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: subscribe: %w", err)
	}
	sub := &memSub{bus: b, taskID: taskID, ch: make(chan Signal, memSubBuffer)}
	b.mu.Lock()
	defer b.mu.Unlock()
	set := b.subs[taskID]
	if set == nil {
		set = make(map[*memSub]struct{})
		b.subs[taskID] = set
	}
	set[sub] = struct{}{}
	return sub, nil
}

// memSub is one MemoryBus subscription.
type memSub struct {
	bus    *MemoryBus
	taskID string
	feed   bool       // a SubscribeAll subscription, in bus.feeds
	mu     sync.Mutex // serialises delivery and close
	ch     chan Signal
	closed bool
}

// Signals implements Subscription.
func (s *memSub) Signals() <-chan Signal { return s.ch }

// Close implements Subscription.
func (s *memSub) Close() error {
	s.bus.mu.Lock()
	if s.feed {
		delete(s.bus.feeds, s)
	} else if set := s.bus.subs[s.taskID]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(s.bus.subs, s.taskID)
		}
	}
	s.bus.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.ch)
	}
	return nil
}

// deliver queues the signal, dropping the oldest queued one if the buffer is
// full so the newest always gets through.
func (s *memSub) deliver(sig Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if s.feed {
		s.deliverToFeed(sig)
		return
	}
	for {
		select {
		case s.ch <- sig:
			return
		default:
		}
		select {
		case <-s.ch:
		default:
		}
	}
}
