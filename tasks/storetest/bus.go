package storetest

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// deliveryDeadline bounds every wait for a signal. A signal may go through
// an external server (Redis, PostgreSQL) on a loaded machine: reaching the
// bound is a failure, so it is generous.
const deliveryDeadline = time.Minute

// TestBus runs the Bus contract against fresh buses from open, one per
// subtest.
func TestBus(t *testing.T, open func(t *testing.T) tasks.Bus) {
	runBus(t, func(t *testing.T) (tasks.Bus, tasks.Bus) {
		b := open(t)
		return b, b
	})
}

// TestBusPair runs the Bus contract with two handles on one fresh backing
// service per subtest, standing for two instances: signals published
// through one must reach subscribers on both.
func TestBusPair(t *testing.T, open func(t *testing.T) (a, b tasks.Bus)) {
	runBus(t, open)
}

// busOpener opens two handles on one fresh bus.
type busOpener func(t *testing.T) (a, b tasks.Bus)

func runBus(t *testing.T, open busOpener) {
	tests := []struct {
		name string
		fn   func(*testing.T, busOpener)
	}{
		{"DeliversEachKind", testBusKinds},
		{"DeliversOnlyTheSubscribedTask", testBusPerTask},
		{"DeliversToEverySubscriber", testBusFanOut},
		{"CloseEndsOnlyThatSubscription", testBusClose},
		{"NewestSignalSurvivesABacklog", testBusBacklog},
		{"ConcurrentUse", testBusConcurrent},
		{"CancelledContext", testBusCancelledContext},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

// subscribe subscribes to the task or fails the test; the subscription is
// closed at the end of the test.
func subscribe(t *testing.T, b tasks.Bus, taskID string) tasks.Subscription {
	t.Helper()
	sub, err := b.Subscribe(context.Background(), taskID)
	if err != nil {
		t.Fatalf("Subscribe(%s): %v", taskID, err)
	}
	t.Cleanup(func() { sub.Close() })
	return sub
}

// publish publishes the signal or fails the test.
func publish(t *testing.T, b tasks.Bus, taskID string, kind tasks.SignalKind) {
	t.Helper()
	if err := b.Publish(context.Background(), tasks.Signal{TaskID: taskID, Kind: kind}); err != nil {
		t.Fatalf("Publish(%s, %s): %v", taskID, kind, err)
	}
}

// receive returns the next signal, failing the test if none arrives in time
// or the subscription ends.
func receive(t *testing.T, sub tasks.Subscription) tasks.Signal {
	t.Helper()
	select {
	case s, ok := <-sub.Signals():
		if !ok {
			t.Fatalf("the subscription ended while a signal was expected")
		}
		return s
	case <-time.After(deliveryDeadline):
		t.Fatalf("no signal within %v", deliveryDeadline)
	}
	return tasks.Signal{}
}

func testBusKinds(t *testing.T, open busOpener) {
	a, b := open(t)
	id := rand.Text()
	sub := subscribe(t, b, id)
	for _, kind := range []tasks.SignalKind{tasks.SignalCancel, tasks.SignalInput, tasks.SignalStatus} {
		publish(t, a, id, kind)
		if got := receive(t, sub); got != (tasks.Signal{TaskID: id, Kind: kind}) {
			t.Fatalf("published %s for %s, received %+v", kind, id, got)
		}
	}
}

func testBusPerTask(t *testing.T, open busOpener) {
	a, b := open(t)
	one, two := rand.Text(), rand.Text()
	subOne := subscribe(t, b, one)
	subTwo := subscribe(t, a, two)
	publish(t, a, two, tasks.SignalCancel)
	if got := receive(t, subTwo); got.TaskID != two {
		t.Fatalf("subscriber of %s received %+v", two, got)
	}
	publish(t, a, one, tasks.SignalStatus)
	if got := receive(t, subOne); got != (tasks.Signal{TaskID: one, Kind: tasks.SignalStatus}) {
		t.Fatalf("subscriber of %s received %+v first; the signal for %s leaked to it", one, got, two)
	}
}

func testBusFanOut(t *testing.T, open busOpener) {
	a, b := open(t)
	id := rand.Text()
	subs := []tasks.Subscription{subscribe(t, a, id), subscribe(t, b, id), subscribe(t, b, id)}
	publish(t, b, id, tasks.SignalInput)
	for i, sub := range subs {
		if got := receive(t, sub); got != (tasks.Signal{TaskID: id, Kind: tasks.SignalInput}) {
			t.Fatalf("subscriber %d received %+v", i, got)
		}
	}
}

func testBusClose(t *testing.T, open busOpener) {
	a, b := open(t)
	id := rand.Text()
	closed := subscribe(t, b, id)
	open2 := subscribe(t, a, id)
	if err := closed.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := closed.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	publish(t, a, id, tasks.SignalCancel)
	if got := receive(t, open2); got.Kind != tasks.SignalCancel {
		t.Fatalf("the remaining subscriber received %+v", got)
	}
	deadline := time.After(deliveryDeadline)
	for {
		select {
		case _, ok := <-closed.Signals():
			if !ok {
				return
			}
			// A signal queued before Close may still be drained.
		case <-deadline:
			t.Fatalf("Signals() was not closed within %v of Close", deliveryDeadline)
		}
	}
}

func testBusBacklog(t *testing.T, open busOpener) {
	a, b := open(t)
	id := rand.Text()
	sub := subscribe(t, b, id)
	for range 500 {
		publish(t, a, id, tasks.SignalStatus)
	}
	publish(t, a, id, tasks.SignalCancel)
	for {
		if got := receive(t, sub); got.Kind == tasks.SignalCancel {
			return
		}
	}
}

func testBusConcurrent(t *testing.T, open busOpener) {
	a, b := open(t)
	id := rand.Text()
	sub := subscribe(t, b, id)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		bus := []tasks.Bus{a, b}[i%2]
		wg.Go(func() {
			for range 50 {
				if err := bus.Publish(context.Background(), tasks.Signal{TaskID: id, Kind: tasks.SignalStatus}); err != nil {
					errs <- err
					return
				}
			}
		})
		wg.Go(func() {
			for range 10 {
				s, err := bus.Subscribe(context.Background(), id)
				if err != nil {
					errs <- err
					return
				}
				s.Close()
			}
		})
	}
	// Drain while the publishers run, as a live subscriber would.
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for range sub.Signals() {
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Publish or Subscribe: %v", err)
	}
	sub.Close()
	select {
	case <-drained:
	case <-time.After(deliveryDeadline):
		t.Fatalf("Signals() was not closed within %v of Close", deliveryDeadline)
	}
	// A fresh subscriber gets every signal published after Subscribe returns;
	// status signals still in flight from the publishers above may come first
	// (the contract allows them: they are harmless wake-ups).
	last := subscribe(t, a, id)
	publish(t, b, id, tasks.SignalInput)
	for {
		got := receive(t, last)
		if got.Kind == tasks.SignalInput {
			return
		}
		if got != (tasks.Signal{TaskID: id, Kind: tasks.SignalStatus}) {
			t.Fatalf("after concurrent use a fresh subscriber received %+v", got)
		}
	}
}

func testBusCancelledContext(t *testing.T, open busOpener) {
	a, _ := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Publish(ctx, tasks.Signal{TaskID: "x", Kind: tasks.SignalStatus}); !errors.Is(err, context.Canceled) {
		t.Errorf("Publish with a cancelled context: got %v, want an error wrapping context.Canceled", err)
	}
	if sub, err := a.Subscribe(ctx, "x"); !errors.Is(err, context.Canceled) {
		if sub != nil {
			sub.Close()
		}
		t.Errorf("Subscribe with a cancelled context: got %v, want an error wrapping context.Canceled", err)
	}
}
