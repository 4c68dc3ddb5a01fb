package tasks

import "context"

// Bus is the driver interface for signals between instances: a cancel was
// requested, an input request was answered, a task's status changed. A
// driver must pass storetest.TestBus (and, for multi-process backends,
// storetest.TestBusPair).
//
// Signals are wake-ups, not data: the Store holds the truth, and a receiver
// re-reads the task. So a Bus may coalesce signals for a subscriber that
// falls behind, but it must never leave one stranded: after a missed signal
// the subscriber still receives a later one.
type Bus interface {
	// Publish sends the signal to every subscription for its task, on every
	// instance.
	Publish(ctx context.Context, s Signal) error
	// Subscribe starts receiving the task's signals. Every signal published
	// after Subscribe returns is delivered (or coalesced as above) until the
	// subscription is closed. The context bounds only the call itself.
	Subscribe(ctx context.Context, taskID string) (Subscription, error)
}

// Subscription receives one task's signals.
type Subscription interface {
	// Signals delivers the signals; it is closed once Close has been called.
	Signals() <-chan Signal
	// Close ends the subscription. It may be called more than once.
	Close() error
}

// Signal tells every instance that something happened to a task.
type Signal struct {
	TaskID string
	Kind   SignalKind
}

// SignalKind says what happened.
type SignalKind string

// The signal kinds.
const (
	SignalCancel SignalKind = "cancel" // the task was cancelled or expired
	SignalInput  SignalKind = "input"  // an input request was answered
	SignalStatus SignalKind = "status" // the task's status, message, owner or outcome changed
	// SignalCreated tells Feeds (see Feed) of a new task. A task's own
	// subscribers have nothing to do for it: its run ignores it, so that
	// announcing a task costs the creating instance no store read.
	SignalCreated SignalKind = "created"
)
