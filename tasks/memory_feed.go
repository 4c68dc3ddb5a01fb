package tasks

import (
	"context"
	"fmt"
)

var _ Feed = (*MemoryBus)(nil)

// SubscribeAll implements Feed.
func (b *MemoryBus) SubscribeAll(ctx context.Context) (Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tasks: subscribe to every task: %w", err)
	}
	sub := &memSub{bus: b, feed: true, ch: make(chan Signal, feedBuffer)}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.feeds[sub] = struct{}{}
	return sub, nil
}

// resyncFeeds tells every feed subscription to read again.
func (b *MemoryBus) resyncFeeds() {
	b.mu.Lock()
	feeds := make([]*memSub, 0, len(b.feeds))
	for sub := range b.feeds {
		feeds = append(feeds, sub)
	}
	b.mu.Unlock()
	for _, sub := range feeds {
		sub.deliver(Resync)
	}
}

// deliverToFeed queues the signal on a feed subscription; when the buffer
// is full, it empties it and queues one Resync instead. The caller holds
// s.mu.
func (s *memSub) deliverToFeed(sig Signal) {
	select {
	case s.ch <- sig:
		return
	default:
	}
	for drained := false; !drained; {
		select {
		case <-s.ch:
		default:
			drained = true
		}
	}
	s.ch <- Resync
}
