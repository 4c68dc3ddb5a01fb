package tasks

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// ErrBusClosed is the error of Publish and Subscribe on a closed RelayBus.
var ErrBusClosed = errors.New("tasks: the bus is closed")

// RelayBus is the heart of a Bus whose instances exchange signals through
// a message service (Redis pub/sub, PostgreSQL LISTEN/NOTIFY): a signal
// reaches the publishing instance's subscriptions at once, without the
// round trip, and every other instance through the service, as a message on
// one channel they all receive and route by task ID. One channel, not one
// per task, because Subscribe is on the path of every task start and every
// watcher: with one channel it costs no round trip to the service.
//
// A driver gives NewRelayBus the function that sends a message on the
// channel, hands Receive each message its listener receives (its own
// included), and calls Resync whenever the listener reconnects: signals may
// have been lost meanwhile, so every subscription is woken to re-read its
// task. Signals are wake-ups, never data, which is what makes that safe.
type RelayBus struct {
	send   func(ctx context.Context, msg string) error
	origin string // marks this instance's own messages, delivered already
	local  *MemoryBus

	mu     sync.Mutex
	closed bool
}

var _ Bus = (*RelayBus)(nil)

// NewRelayBus returns a RelayBus that sends its messages with send.
func NewRelayBus(send func(ctx context.Context, msg string) error) *RelayBus {
	return &RelayBus{send: send, origin: rand.Text(), local: NewMemoryBus()}
}

// Publish implements Bus: local subscriptions at once, then the others
// through the service.
func (b *RelayBus) Publish(ctx context.Context, s Signal) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tasks: publish: %w", err)
	}
	if b.isClosed() {
		return ErrBusClosed
	}
	if err := b.local.Publish(ctx, s); err != nil {
		return err
	}
	return b.send(ctx, b.Message(s))
}

// Message returns the message Publish sends on the channel for s: what a
// SignallingStore's write sends in its place.
func (b *RelayBus) Message(s Signal) string {
	return string(s.Kind) + " " + b.origin + " " + s.TaskID
}

// PublishLocal is Publish to this instance's subscriptions alone, for a
// signal whose message a write has sent on the channel already (see
// SignallingStore).
func (b *RelayBus) PublishLocal(ctx context.Context, s Signal) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tasks: publish: %w", err)
	}
	if b.isClosed() {
		return ErrBusClosed
	}
	return b.local.Publish(ctx, s)
}

// Subscribe implements Bus. Every signal published after it returns reaches
// the subscription; one in flight from before may too, a harmless wake-up.
func (b *RelayBus) Subscribe(ctx context.Context, taskID string) (Subscription, error) {
	if b.isClosed() {
		return nil, ErrBusClosed
	}
	return b.local.Subscribe(ctx, taskID)
}

// SubscribeFunc is Subscribe with fn called for each signal instead of a
// channel to read (see MemoryBus.SubscribeFunc).
func (b *RelayBus) SubscribeFunc(ctx context.Context, taskID string, fn func(Signal)) (Subscription, error) {
	if b.isClosed() {
		return nil, ErrBusClosed
	}
	return b.local.SubscribeFunc(ctx, taskID, fn)
}

// Receive delivers a message from the channel to this instance's
// subscriptions, unless this instance sent it. A message is "<kind>
// <origin> <task ID>": neither kind nor origin contains a space, and the
// task ID is the rest. A malformed one is an error, for the driver to log.
func (b *RelayBus) Receive(msg string) error {
	kind, rest, ok1 := strings.Cut(msg, " ")
	origin, id, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || kind == "" || origin == "" {
		return fmt.Errorf("tasks: %q is not a task signal; is another program sending on the bus's channel?", msg)
	}
	if origin != b.origin {
		b.local.Publish(context.Background(), Signal{TaskID: id, Kind: SignalKind(kind)})
	}
	return nil
}

// Resync wakes every subscription with a status signal, so that its owner
// re-reads its task: the driver's listener reconnected, and signals may
// have been lost meanwhile.
func (b *RelayBus) Resync() {
	b.local.Resync()
}

// Close makes later Publish and Subscribe calls fail with ErrBusClosed.
// Subscriptions stay open but receive nothing more; their owners close them.
func (b *RelayBus) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
}

func (b *RelayBus) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}
