package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
)

// sentBatches is a notifier's exec that records each batch and holds the
// first until release is closed.
type sentBatches struct {
	mu      sync.Mutex
	batches [][]string
	release chan struct{}
	err     error // what every exec returns
}

func (s *sentBatches) exec(_ context.Context, msgs []string) error {
	s.mu.Lock()
	s.batches = append(s.batches, slices.Clone(msgs))
	first := len(s.batches) == 1
	s.mu.Unlock()
	if first {
		<-s.release
	}
	return s.err
}

// sendAll sends each message on its own goroutine and returns what each
// send returned, in the messages' order, once all have.
func sendAll(ctx context.Context, n *notifier, msgs []string) []error {
	errs := make([]error, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		wg.Go(func() { errs[i] = n.send(ctx, m) })
	}
	wg.Wait()
	return errs
}

// Messages sent while a send is in flight wait for it and then go
// together, in one exec; a message sent when nothing is in flight goes at
// once, alone.
func TestNotifierSendsWaitingMessagesTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sent := &sentBatches{release: make(chan struct{})}
		n := &notifier{exec: sent.exec}
		ctx := context.Background()
		first := make(chan error, 1)
		go func() { first <- n.send(ctx, "first") }()
		synctest.Wait() // the first message's exec is in flight, held
		waiting := make([]string, 20)
		for i := range waiting {
			waiting[i] = fmt.Sprint("waiting-", i)
		}
		errs := make(chan []error, 1)
		go func() { errs <- sendAll(ctx, n, waiting) }()
		synctest.Wait() // all twenty wait for the first
		close(sent.release)
		if err := <-first; err != nil {
			t.Errorf("the first send: %v", err)
		}
		for i, err := range <-errs {
			if err != nil {
				t.Errorf("send of %s: %v", waiting[i], err)
			}
		}
		if err := n.send(ctx, "alone"); err != nil {
			t.Errorf("the send after them: %v", err)
		}
		if len(sent.batches) != 3 {
			t.Fatalf("%d execs, want 3 (the first message, the twenty that waited, the last one): %q", len(sent.batches), sent.batches)
		}
		slices.Sort(sent.batches[1])
		slices.Sort(waiting)
		if !slices.Equal(sent.batches[0], []string{"first"}) || !slices.Equal(sent.batches[1], waiting) ||
			!slices.Equal(sent.batches[2], []string{"alone"}) {
			t.Errorf("execs %q, want [first], the twenty waiting, [alone]", sent.batches)
		}
	})
}

// Every message of a batch whose exec fails gets its error; a caller
// whose context ends while it waits gets the context's cause at once,
// and its message still goes with its batch.
func TestNotifierErrorsReachEveryMessageOfTheBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refused := errors.New("the connection is gone")
		sent := &sentBatches{release: make(chan struct{}), err: refused}
		n := &notifier{exec: sent.exec}
		go n.send(context.Background(), "first")
		synctest.Wait()
		gone := errors.New("the caller went away")
		ctx, cancel := context.WithCancelCause(context.Background())
		impatient := make(chan error, 1)
		go func() { impatient <- n.send(ctx, "impatient") }()
		errs := make(chan []error, 1)
		go func() { errs <- sendAll(context.Background(), n, []string{"a", "b"}) }()
		synctest.Wait()
		cancel(gone)
		if err := <-impatient; !errors.Is(err, gone) {
			t.Errorf("the send whose context ended returned %v, want its cause", err)
		}
		close(sent.release)
		for i, err := range <-errs {
			if !errors.Is(err, refused) {
				t.Errorf("send %d of the failed batch returned %v, want the exec's error", i, err)
			}
		}
		if got := sent.batches[1]; len(got) != 3 || !slices.Contains(got, "impatient") {
			t.Errorf("the second exec sent %q, want the impatient message with a and b", got)
		}
	})
}
