package postgres

import (
	"context"
	"sync"
	"time"
)

// notifier sends a Bus's messages, several at a time when they come
// together: a message sent while another send is in flight waits for it
// to end, then goes with every other message that waited meanwhile, in
// one statement and so in one transaction. PostgreSQL gives each
// transaction that notifies a transaction ID, so its commit waits for a
// WAL flush, and serializes those commits on a database-wide lock: one
// transaction per signal made two of a task life's four. Batched, lives
// at 32 in flight went from 1,349–1,476 to 1,511–1,539 a second, and
// weft's CPU a life from 400–440 µs to 380–392 (BenchmarkPolledTaskLife,
// three runs each, interleaved).
type notifier struct {
	// exec sends msgs in one transaction.
	exec func(ctx context.Context, msgs []string) error

	mu      sync.Mutex
	sending bool         // a send is in flight
	next    *notifyBatch // the messages waiting for it; nil if none
}

// notifyBatch is messages sent together.
type notifyBatch struct {
	msgs []string
	done chan struct{} // closed when the batch has been sent; err is then set
	err  error
}

// notifyTimeout bounds a send, which may carry other callers' messages
// and so cannot end with its own caller's context.
const notifyTimeout = 10 * time.Second

// send sends msg, at once if nothing else is being sent, else with the
// messages waiting for that send to end, and returns once msg has been
// sent or ctx has ended (msg then still goes).
func (n *notifier) send(ctx context.Context, msg string) error {
	n.mu.Lock()
	if !n.sending {
		n.sending = true
		n.mu.Unlock()
		err := n.sendNow([]string{msg})
		n.sent()
		return err
	}
	if n.next == nil {
		n.next = &notifyBatch{done: make(chan struct{})}
	}
	b := n.next
	b.msgs = append(b.msgs, msg)
	n.mu.Unlock()
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// sent ends a send: the messages that waited for it go next, on a
// goroutine of their own, or nothing is in flight any more.
func (n *notifier) sent() {
	n.mu.Lock()
	b := n.next
	n.next = nil
	n.sending = b != nil
	n.mu.Unlock()
	if b == nil {
		return
	}
	go func() {
		b.err = n.sendNow(b.msgs)
		close(b.done)
		n.sent()
	}()
}

// sendNow runs exec within notifyTimeout.
func (n *notifier) sendNow(msgs []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	return n.exec(ctx, msgs)
}
