package groupwrite

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// write is a test write: its number, and the outcome send gives it.
type write struct {
	n    int
	sent bool
}

// recorder is a send function that records each group, and holds a group
// in flight while hold is set, until the test releases it.
type recorder struct {
	mu      sync.Mutex
	groups  [][]int
	ctxs    []context.Context
	senders []uint64      // the goroutine that sent each group
	hold    chan struct{} // nil: send returns at once
	holding chan struct{} // receives when send starts holding
}

func (r *recorder) send(ctx context.Context, group []*write) {
	r.mu.Lock()
	var ns []int
	for _, w := range group {
		ns = append(ns, w.n)
	}
	r.groups = append(r.groups, ns)
	r.ctxs = append(r.ctxs, ctx)
	r.senders = append(r.senders, goroutineID())
	hold := r.hold
	r.hold = nil // only the first group is held
	r.mu.Unlock()
	if hold != nil {
		r.holding <- struct{}{}
		<-hold
	}
	for _, w := range group {
		w.sent = true
	}
}

func (r *recorder) recorded() ([][]int, []context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.groups), slices.Clone(r.ctxs)
}

// goroutineID is the number the runtime gives the calling goroutine in
// its stack traces.
func goroutineID() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	field := bytes.Fields(buf)[1] // "goroutine 42 [running]:"
	id, err := strconv.ParseUint(string(field), 10, 64)
	if err != nil {
		panic("groupwrite test: no goroutine number in " + string(buf))
	}
	return id
}

type ctxKey struct{}

func TestALoneWriteGoesAtOnceWithItsCallersContext(t *testing.T) {
	r := &recorder{}
	g := New(8, time.Minute, r.send)
	ctx := context.WithValue(t.Context(), ctxKey{}, "caller")
	w := &write{n: 1}
	if err := g.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	groups, ctxs := r.recorded()
	if !w.sent || !slices.EqualFunc(groups, [][]int{{1}}, slices.Equal) {
		t.Fatalf("groups %v, write sent %v; want the write alone, sent", groups, w.sent)
	}
	if ctxs[0].Value(ctxKey{}) != "caller" {
		t.Fatal("a lone write was not sent with its caller's context")
	}
	if inFlight, waiting := g.State(); inFlight || waiting != 0 {
		t.Fatalf("after the write: in flight %v, %d waiting; want nothing", inFlight, waiting)
	}
}

// startHeld makes write 0 and holds its group in flight; it returns once
// send holds it, with a function that releases it and waits for the
// write's return.
func startHeld(t *testing.T, g *Writer[*write], r *recorder) (release func()) {
	hold := make(chan struct{})
	r.hold, r.holding = hold, make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- g.Write(t.Context(), &write{n: 0}) }()
	<-r.holding
	return func() {
		close(hold)
		if err := <-done; err != nil {
			t.Errorf("the held write: %v", err)
		}
	}
}

// writeAll makes writes first..last on goroutines of their own and
// returns a channel that gets each one's error.
func writeAll(ctx context.Context, g *Writer[*write], first, last int) (<-chan error, []*write) {
	errs := make(chan error, last-first+1)
	var ws []*write
	for n := first; n <= last; n++ {
		w := &write{n: n}
		ws = append(ws, w)
		go func() { errs <- g.Write(ctx, w) }()
	}
	return errs, ws
}

func TestWritesMadeWhileAGroupIsInFlightGoTogetherInGroupsOfAtMostMax(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{}
		g := New(2, time.Minute, r.send)
		release := startHeld(t, g, r)
		errs, ws := writeAll(t.Context(), g, 1, 5)
		synctest.Wait() // every write waits for the held group
		if inFlight, waiting := g.State(); !inFlight || waiting != 5 {
			t.Fatalf("with a group held: in flight %v, %d waiting; want true, 5", inFlight, waiting)
		}
		release()
		for range ws {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		for _, w := range ws {
			if !w.sent {
				t.Fatalf("write %d returned before its group was sent", w.n)
			}
		}
		groups, ctxs := r.recorded()
		var sizes []int
		var order []int
		for _, gr := range groups[1:] {
			sizes = append(sizes, len(gr))
			order = append(order, gr...)
		}
		if !slices.Equal(sizes, []int{2, 2, 1}) {
			t.Fatalf("the waiting writes went in groups %v, want groups of 2, 2 and 1 (max 2)", groups[1:])
		}
		r.mu.Lock()
		senders := slices.Clone(r.senders[1:])
		r.mu.Unlock()
		if senders[0] != senders[1] || senders[1] != senders[2] {
			t.Fatalf("the groups of waiting writes were sent by goroutines %v, want one goroutine sending them in turn", senders)
		}
		slices.Sort(order)
		if !slices.Equal(order, []int{1, 2, 3, 4, 5}) {
			t.Fatalf("the waiting writes went as %v, want each of 1..5 once", groups[1:])
		}
		for _, ctx := range ctxs[1:] {
			deadline, ok := ctx.Deadline()
			if !ok || deadline.After(time.Now().Add(time.Minute)) {
				t.Fatalf("a group of waiting writes was sent with deadline %v (set %v), want at most the Writer's minute", deadline, ok)
			}
		}
		if inFlight, waiting := g.State(); inFlight || waiting != 0 {
			t.Fatalf("after every write: in flight %v, %d waiting; want nothing", inFlight, waiting)
		}
	})
}

func TestAWriteGivenUpOnWhileWaitingIsNeverSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{}
		g := New(8, time.Minute, r.send)
		release := startHeld(t, g, r)
		why := errors.New("the caller went away")
		ctx, cancel := context.WithCancelCause(t.Context())
		gaveUp, _ := writeAll(ctx, g, 1, 1)
		kept, _ := writeAll(t.Context(), g, 2, 2)
		synctest.Wait()
		cancel(why)
		if err := <-gaveUp; !errors.Is(err, why) {
			t.Fatalf("the write given up on returned %v, want its context's cause", err)
		}
		release()
		if err := <-kept; err != nil {
			t.Fatal(err)
		}
		groups, _ := r.recorded()
		if !slices.EqualFunc(groups, [][]int{{0}, {2}}, slices.Equal) {
			t.Fatalf("groups sent %v, want the held write, then write 2 alone", groups)
		}
	})
}
