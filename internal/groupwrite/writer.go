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
// outcome; it must not keep the group once it returns. A group holds at
// most max writes, so a write waits behind at most that many. A group of
// writes that waited is sent with a context bounded by timeout: it carries
// several callers' writes and so cannot end with one caller's context.
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

// sent ends a group sent on a caller's goroutine: the writes that waited
// for it go next, on a goroutine of their own, or nothing is in flight any
// more.
func (g *Writer[W]) sent() {
	if group := g.next(); group != nil {
		go g.sendWaited(group)
	}
}

// sendWaited sends group, then each group that waited for it, until none
// waits. One goroutine sends a whole run of groups: a goroutine for each
// group started with a small stack and grew it again in the client
// library's deep send path. Over stdio with Redis at 32 in flight, that
// growth (runtime.newstack under the group goroutines) was 2–3% of
// weft's CPU, and is under 1% with one goroutine a run (bench harness
// profiles of both task surfaces, session 22).
func (g *Writer[W]) sendWaited(group []*pending[W]) {
	var ws []W
	for group != nil {
		ws = ws[:0]
		for _, p := range group {
			ws = append(ws, p.w)
		}
		ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
		g.send(ctx, ws)
		cancel()
		for _, p := range group {
			close(p.done)
		}
		group = g.next()
	}
}

// next takes the writes that wait, up to max, as the next group in
// flight; it returns nil, with nothing in flight any more, when none
// waits.
func (g *Writer[W]) next() []*pending[W] {
	g.mu.Lock()
	defer g.mu.Unlock()
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
	return group
}

// State reports whether a group is in flight and how many writes wait for
// it, for tests that hold a group in flight.
func (g *Writer[W]) State() (inFlight bool, waiting int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sending, len(g.queued)
}
