package transport

import "context"

// writeLock is the turn to write to a stream: a mutex whose taking can
// give up when a context ends, so that a writer queued behind a write
// blocked on a peer that does not read returns with its context.
type writeLock chan struct{}

// newWriteLock returns an unlocked writeLock.
func newWriteLock() writeLock { return make(writeLock, 1) }

// lock takes the turn, waiting as long as it takes.
func (l writeLock) lock() { l <- struct{}{} }

// tryLock takes the turn if it is free.
func (l writeLock) tryLock() bool {
	select {
	case l <- struct{}{}:
		return true
	default:
		return false
	}
}

// lockUntil takes the turn, or returns ctx's error if ctx ends first. The
// turn free, it does not ask ctx for its Done channel (which a handler's
// context would make for it).
func (l writeLock) lockUntil(ctx context.Context) error {
	if l.tryLock() {
		return nil
	}
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unlock gives the turn back.
func (l writeLock) unlock() { <-l }
