package storetest

import (
	"sync"
	"time"
)

// Clock is a tasks.Clock a test moves by hand, shared by the Runtimes of a
// test (tasks.WithClock), so that leases lapse and tasks expire without
// waiting for them.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock showing start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the time the Clock shows.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the Clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
