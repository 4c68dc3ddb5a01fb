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
	funcs map[string]map[*funcSub]struct{}
	feeds map[*memSub]struct{} // SubscribeAll's subscriptions
}

// NewMemoryBus returns a MemoryBus with no subscriptions.
func NewMemoryBus() *MemoryBus {
	return &MemoryBus{subs: make(map[string]map[*memSub]struct{}), funcs: make(map[string]map[*funcSub]struct{}),
		feeds: make(map[*memSub]struct{})}
}

// Publish implements Bus.
func (b *MemoryBus) Publish(ctx context.Context, s Signal) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tasks: publish: %w", err)
	}
	b.mu.Lock()
	var fns []func(Signal)
	for sub := range b.funcs[s.TaskID] {
		fns = append(fns, sub.fn)
	}
	var subs []*memSub
	if n := len(b.subs[s.TaskID]) + len(b.feeds); n > 0 {
		subs = make([]*memSub, 0, n)
		for sub := range b.subs[s.TaskID] {
			subs = append(subs, sub)
		}
		for sub := range b.feeds {
			subs = append(subs, sub)
		}
	}
	b.mu.Unlock()
	// Functions first: the Runtime's record cache forgets the task in one
	// before a watcher woken through a channel reads it again.
	for _, fn := range fns {
		fn(s)
	}
	for _, sub := range subs {
		sub.deliver(s)
	}
	return nil
}

// Resync wakes every subscription with a status signal, and every
// SubscribeAll subscription with Resync, so that their owners read their
// tasks again: for a driver built on a MemoryBus whose service may have
// lost signals meanwhile.
func (b *MemoryBus) Resync() {
	b.mu.Lock()
	ids := make([]string, 0, len(b.subs)+len(b.funcs))
	for id := range b.subs {
		ids = append(ids, id)
	}
	for id := range b.funcs {
		if _, both := b.subs[id]; !both {
			ids = append(ids, id)
		}
	}
	b.mu.Unlock()
	for _, id := range ids {
		b.Publish(context.Background(), Signal{TaskID: id, Kind: SignalStatus})
	}
	b.resyncFeeds()
}

// SubscribeFunc is Subscribe with fn called, on the publisher's goroutine,
// for each signal instead of a channel to read: a subscription that needs
// no goroutine of its own. Functions of a task are called before its
// channel subscriptions receive the signal. fn must return quickly and
// must not call the Bus. A Publish under way as Close returns may still
// call it once.
func (b *MemoryBus) SubscribeFunc(ctx context.Context, taskID string, fn func(Signal)) (Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: subscribe: %w", err)
	}
	sub := &funcSub{bus: b, taskID: taskID, fn: fn}
	b.mu.Lock()
	defer b.mu.Unlock()
	addSub(b.funcs, taskID, sub)
	return sub, nil
}

// funcSub is one MemoryBus subscription by function.
type funcSub struct {
	bus    *MemoryBus
	taskID string
	fn     func(Signal)
}

// Signals implements Subscription: a function subscription has no channel.
func (s *funcSub) Signals() <-chan Signal { return nil }

// Close implements Subscription.
func (s *funcSub) Close() error {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	removeSub(s.bus.funcs, s.taskID, s)
	return nil
}

// addSub adds a subscription to a task's set.
func addSub[S comparable](subs map[string]map[S]struct{}, taskID string, sub S) {
	set := subs[taskID]
	if set == nil {
		set = make(map[S]struct{}, 1)
		subs[taskID] = set
	}
	set[sub] = struct{}{}
}

// removeSub removes a subscription from a task's set, and the set once empty.
func removeSub[S comparable](subs map[string]map[S]struct{}, taskID string, sub S) {
	if set := subs[taskID]; set != nil {
		delete(set, sub)
		if len(set) == 0 {
			delete(subs, taskID)
		}
	}
}

// Subscribe implements Bus.
func (b *MemoryBus) Subscribe(ctx context.Context, taskID string) (Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: subscribe: %w", err)
	}
	sub := &memSub{bus: b, taskID: taskID, ch: make(chan Signal, memSubBuffer)}
	b.mu.Lock()
	defer b.mu.Unlock()
	addSub(b.subs, taskID, sub)
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
	} else {
		removeSub(s.bus.subs, s.taskID, s)
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
