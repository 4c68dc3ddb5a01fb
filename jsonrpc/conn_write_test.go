package jsonrpc_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

// gatedStream is a PushStream whose writes wait at a gate the test opens,
// recording the method of every notification written.
type gatedStream struct {
	nopPush
	entered chan string   // a write has begun, with its method
	gate    chan struct{} // each receive lets one write finish
	mu      sync.Mutex
	methods []string
}

func (s *gatedStream) Write(_ context.Context, msg jsonrpc.Message) error {
	method := msg.(*jsonrpc.Request).Method
	s.entered <- method
	<-s.gate
	s.mu.Lock()
	s.methods = append(s.methods, method)
	s.mu.Unlock()
	return nil
}

func TestWriterWaitingForItsTurnGivesUpWhenItsContextEnds(t *testing.T) {
	s := &gatedStream{entered: make(chan string, 8), gate: make(chan struct{})}
	c := newConn(t, s, jsonrpc.ConnOptions{})
	first := make(chan error, 1)
	go func() { first <- c.Notify(timeoutCtx(t), "first", nil) }()
	receive(t, s.entered, "the first write")

	ctx, cancel := context.WithCancel(timeoutCtx(t))
	second := make(chan error, 1)
	go func() { second <- c.Notify(ctx, "second", nil) }()
	third := make(chan error, 1)
	go func() { third <- c.Notify(timeoutCtx(t), "third", nil) }()
	cancel()
	if err := receive(t, second, "the abandoned write"); !errors.Is(err, context.Canceled) {
		t.Errorf("the write whose context ended returned %v; want context.Canceled", err)
	}
	s.gate <- struct{}{}
	if err := receive(t, first, "the first write to finish"); err != nil {
		t.Errorf("first write: %v", err)
	}
	if got := receive(t, s.entered, "the next write"); got != "third" {
		t.Errorf("after the first write, %q was written; want third", got)
	}
	s.gate <- struct{}{}
	if err := receive(t, third, "the third write"); err != nil {
		t.Errorf("third write: %v", err)
	}
	// The turn is free again: a write goes straight through.
	go func() { s.gate <- struct{}{} }()
	if err := c.Notify(timeoutCtx(t), "fourth", nil); err != nil {
		t.Errorf("fourth write: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if want := []string{"first", "third", "fourth"}; len(s.methods) != 3 || s.methods[0] != want[0] || s.methods[1] != want[1] || s.methods[2] != want[2] {
		t.Errorf("written %v; want %v", s.methods, want)
	}
}

// Many writers, some giving up while they wait, never lose the turn: every
// write that was not abandoned gets through.
func TestWriteTurnSurvivesWritersGivingUp(t *testing.T) {
	s := &countingPush{}
	c := newConn(t, s, jsonrpc.ConnOptions{})
	const writers, each = 8, 200
	var wg sync.WaitGroup
	var mu sync.Mutex
	sent := 0
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				ctx, cancel := context.WithCancel(context.Background())
				if (w+i)%3 == 0 {
					cancel() // gives up at once if it has to wait
				}
				err := c.Notify(ctx, "n", nil)
				cancel()
				switch {
				case err == nil:
					mu.Lock()
					sent++
					mu.Unlock()
				case !errors.Is(err, context.Canceled):
					t.Errorf("write: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if got := s.count(); got != sent {
		t.Errorf("%d writes reported sent, %d reached the stream", sent, got)
	}
}

// countingPush is a PushStream counting what is written to it.
type countingPush struct {
	nopPush
	mu sync.Mutex
	n  int
}

func (s *countingPush) Write(context.Context, jsonrpc.Message) error {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
	return nil
}

func (s *countingPush) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}
