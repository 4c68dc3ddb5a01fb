// Package groupwrite sends the writes that callers make at the same time
// as one group: one round trip to a database for many writes. The
// PostgreSQL and Redis task stores use it.
//
// A write made while no group is in flight goes at once, alone, on its
// caller's goroutine, so nothing waits at one write in flight and no timer
// delays it. A write made while a group is in flight waits for that group,
// then goes with every write that waited meanwhile (up to a bound), on a
// goroutine of the Writer's. A waiting write whose caller gives up before a
// group takes it is never sent.
package groupwrite

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Pending states: queued until a group takes the write, or until its
// caller gives up on it first.
const (
	queued int32 = iota
	taken
	abandoned
)

// pending is a write waiting for a group.
type pending[W any] struct {
	w     W
	state atomic.Int32
	done  chan struct{} // closed once the group holding w was sent
}

// Writer sends writes of type W, which carry their own outcome (a
// pointer to a struct, typically), in groups. It is safe for concurrent
// use.
type Writer[W any] struct {
	send    func(ctx context.Context, group []W)
	max     int
	timeout time.Duration

	mu      sync.Mutex
	sending bool          // a group is in flight
	queued  []*pending[W] // the writes waiting for it
}

// New returns a Writer that sends each group with send, which makes every
// write of the group (one round trip, ideally) and sets each one's
// outcome. A group holds at most max writes, so a write waits behind at
// most that many. A group of writes that waited is sent with a context
// bounded by timeout: it carries several callers' writes and so cannot end
// with one caller's context.
func New[W any](max int, timeout time.Duration, send func(ctx context.Context, group []W)) *Writer[W] {
	return &Writer[W]{send: send, max: max, timeout: timeout}
}

// Write sends w, at once and with ctx if no group is in flight, else in
// the group after it. It returns once send has set w's outcome, or with
// ctx's cause if ctx ends while w still waits: then w is never sent.
func (g *Writer[W]) Write(ctx context.Context, w W) error {
	g.mu.Lock()
	if !g.sending {
		g.sending = true
		g.mu.Unlock()
		g.send(ctx, []W{w})
		g.sent()
		return nil
	}
	p := &pending[W]{w: w, done: make(chan struct{})}
	g.queued = append(g.queued, p)
	g.mu.Unlock()
	select {
	case <-p.done:
	case <-ctx.Done():
		if p.state.CompareAndSwap(queued, abandoned) {
			return context.Cause(ctx)
		}
		<-p.done
	}
	return nil
}

// sent ends a group: the writes that waited for it go next, on a goroutine
// of their own, or nothing is in flight any more.
func (g *Writer[W]) sent() {
	g.mu.Lock()
	var group []*pending[W]
	for len(group) == 0 && len(g.queued) > 0 {
		n := min(len(g.queued), g.max)
		for _, p := range g.queued[:n] {
			if p.state.CompareAndSwap(queued, taken) {
				group = append(group, p)
			}
		}
		g.queued = slices.Delete(g.queued, 0, n)
	}
	g.sending = len(group) > 0
	g.mu.Unlock()
	if len(group) == 0 {
		return
	}
	go func() {
		ws := make([]W, len(group))
		for i, p := range group {
			ws[i] = p.w
		}
		ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
		g.send(ctx, ws)
		cancel()
		for _, p := range group {
			close(p.done)
		}
		g.sent()
	}()
}

// State reports whether a group is in flight and how many writes wait for
// it, for tests that hold a group in flight.
func (g *Writer[W]) State() (inFlight bool, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sending, len(g.queued)
}
