package redis

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
	"github.com/weftmcp/weft/tasks"
)

// Bus is a tasks.Bus on Redis pub/sub. Every Bus with the same prefix
// subscribes to one channel, {prefix}:signals, and routes each signal to its
// own subscriptions by task ID; a signal also reaches the publishing Bus's
// subscriptions at once, without the round trip.
//
// One channel, not one per task, because Subscribe is on the path of every
// task start and every watcher: with one channel it is a map insertion,
// where a per-task channel costs a SUBSCRIBE round trip that must be
// confirmed before Subscribe may return (or a signal sent meanwhile is
// lost), and an UNSUBSCRIBE at the end. The price is that each instance
// sees every signal: a few dozen bytes per task state change, per instance.
// Pub/sub rather than streams because signals are wake-ups: a subscriber
// that was disconnected re-reads the store, and a Bus wakes all its
// subscriptions when its connection comes back.
//
// Create one with NewBus and stop it with Close.
type Bus struct {
	client  redis.UniversalClient
	channel string
	origin  string // marks this Bus's own messages, already delivered locally
	log     *slog.Logger
	ps      *redis.PubSub
	local   *tasks.MemoryBus
	done    chan struct{} // closed when dispatch has stopped

	mu     sync.Mutex
	closed bool
	topics map[string]int // subscriptions per task ID, to wake after a reconnect
}

var _ tasks.Bus = (*Bus)(nil)

// NewBus subscribes to the signal channel on the client's Redis and
// returns once Redis has confirmed the subscription. Close the Bus when
// done; the caller keeps and closes the client.
func NewBus(ctx context.Context, client redis.UniversalClient, opts ...Option) (*Bus, error) {
	if client == nil {
		return nil, errors.New("redis: NewBus needs a client (redis.NewClient, NewClusterClient or NewUniversalClient)")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	channel := newKeys(cfg.prefix).signals
	ps := client.Subscribe(ctx, channel)
	if _, err := ps.Receive(ctx); err != nil {
		ps.Close()
		return nil, fmt.Errorf("redis: subscribing to %s: %w", channel, err)
	}
	b := &Bus{
		client:  client,
		channel: channel,
		origin:  rand.Text(),
		log:     cfg.logger,
		ps:      ps,
		local:   tasks.NewMemoryBus(),
		done:    make(chan struct{}),
		topics:  make(map[string]int),
	}
	go b.dispatch(ps.ChannelWithSubscriptions(redis.WithChannelSize(1024)))
	return b, nil
}

// Publish implements tasks.Bus.
func (b *Bus) Publish(ctx context.Context, s tasks.Signal) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: publish: %w", err)
	}
	if b.isClosed() {
		return errBusClosed
	}
	if err := b.local.Publish(ctx, s); err != nil {
		return err
	}
	if err := b.client.Publish(ctx, b.channel, encodeSignal(b.origin, s)).Err(); err != nil {
		return fmt.Errorf("redis: publish %s signal for task %s on %s: %w", s.Kind, s.TaskID, b.channel, err)
	}
	return nil
}

// Subscribe implements tasks.Bus. It costs no round trip to Redis: this Bus
// is subscribed to its channel from NewBus on and routes by task ID, so every
// signal published after Subscribe returns reaches the new subscription (one
// still in flight from before may too: a harmless wake-up).
func (b *Bus) Subscribe(ctx context.Context, taskID string) (tasks.Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: subscribe: %w", err)
	}
	if b.isClosed() {
		return nil, errBusClosed
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errBusClosed
	}
	sub, err := b.local.Subscribe(ctx, taskID)
	if err != nil {
		return nil, err
	}
	b.topics[taskID]++
	return &subscription{Subscription: sub, bus: b, taskID: taskID}, nil
}

// Close unsubscribes from Redis. Subscriptions stay open but receive
// nothing more; their owners close them.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	err := b.ps.Close()
	<-b.done
	if err != nil {
		return fmt.Errorf("redis: closing the subscription to %s: %w", b.channel, err)
	}
	return nil
}

func (b *Bus) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// errBusClosed is returned by calls on a closed Bus.
var errBusClosed = errors.New("redis: the bus is closed")

// dispatch delivers the other Buses' signals to this Bus's subscriptions
// until the channel closes. A repeated subscription confirmation means the
// connection dropped and was restored, and signals may have been lost
// meanwhile: every subscription gets a status signal, so its owner re-reads
// the task.
func (b *Bus) dispatch(ch <-chan any) {
	defer close(b.done)
	ctx := context.Background()
	for msg := range ch {
		switch m := msg.(type) {
		case *redis.Message:
			origin, s, ok := decodeSignal(m.Payload)
			if !ok {
				b.log.Warn("redis: ignoring a malformed task signal; is another program publishing on the channel?",
					slog.String("channel", b.channel), slog.String("payload", m.Payload))
				continue
			}
			if origin != b.origin {
				b.local.Publish(ctx, s)
			}
		case *redis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			b.log.Info("redis: the task bus reconnected; waking every subscription to re-read its task",
				slog.String("channel", b.channel))
			for _, id := range b.subscribedTasks() {
				b.local.Publish(ctx, tasks.Signal{TaskID: id, Kind: tasks.SignalStatus})
			}
		}
	}
}

// subscribedTasks returns the IDs of the tasks with subscriptions.
func (b *Bus) subscribedTasks() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	ids := make([]string, 0, len(b.topics))
	for id := range b.topics {
		ids = append(ids, id)
	}
	return ids
}

// subscription is a local subscription that keeps the Bus's count of
// subscribed tasks.
type subscription struct {
	tasks.Subscription
	bus    *Bus
	taskID string
	once   sync.Once
}

// Close implements tasks.Subscription.
func (s *subscription) Close() error {
	s.once.Do(func() {
		b := s.bus
		b.mu.Lock()
		if b.topics[s.taskID]--; b.topics[s.taskID] <= 0 {
			delete(b.topics, s.taskID)
		}
		b.mu.Unlock()
	})
	return s.Subscription.Close()
}

// A signal on the channel is "<kind> <origin> <task ID>": neither kind nor
// origin contains a space, and the task ID is the rest.
func encodeSignal(origin string, s tasks.Signal) string {
	return string(s.Kind) + " " + origin + " " + s.TaskID
}

func decodeSignal(payload string) (origin string, s tasks.Signal, ok bool) {
	kind, rest, ok1 := strings.Cut(payload, " ")
	origin, id, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || kind == "" || origin == "" {
		return "", tasks.Signal{}, false
	}
	return origin, tasks.Signal{TaskID: id, Kind: tasks.SignalKind(kind)}, true
}
