package redis

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/redis/go-redis/v9"
	"github.com/weftmcp/weft/tasks"
)

// Bus is a tasks.Bus on Redis pub/sub: a tasks.RelayBus whose channel is
// {prefix}:signals, which every Bus with the same prefix subscribes to.
// Pub/sub rather than streams because signals are wake-ups: a subscriber
// that was disconnected re-reads the store, and a Bus wakes all its
// subscriptions when its connection comes back.
//
// Create one with NewBus and stop it with Close.
type Bus struct {
	*tasks.RelayBus
	client  redis.UniversalClient
	channel string
	// own is a channel of this Bus alone, on which nothing is published:
	// its connection subscribes to it and to channel in one SUBSCRIBE, so
	// while Redis counts a subscriber of own, this Bus is subscribed to
	// channel (see luaSignal).
	own  string
	log  *slog.Logger
	ps   *redis.PubSub
	done chan struct{} // closed when dispatch has stopped
	once sync.Once
}

var _ tasks.Bus = (*Bus)(nil)

// NewBus subscribes to the signal channel on the client's Redis and
// returns once Redis has confirmed the subscription. Close the Bus when
// done; the caller keeps and closes the client. Give it the client the
// Store has: the Store's scripts then publish their writes' signals
// themselves (Store.SignalsTo).
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
	own := channel + ":bus:" + rand.Text()
	ps := client.Subscribe(ctx, own, channel)
	if err := awaitSubscription(ctx, ps, channel); err != nil {
		ps.Close()
		return nil, fmt.Errorf("redis: subscribing to %s: %w", channel, err)
	}
	b := &Bus{client: client, channel: channel, own: own, log: cfg.logger, ps: ps, done: make(chan struct{})}
	b.RelayBus = tasks.NewRelayBus(func(ctx context.Context, msg string) error {
		if err := client.Publish(ctx, channel, msg).Err(); err != nil {
			return fmt.Errorf("redis: publishing a task signal on %s: %w", channel, err)
		}
		return nil
	})
	go b.dispatch(ps.ChannelWithSubscriptions(redis.WithChannelSize(1024)))
	return b, nil
}

// awaitSubscription receives ps's replies until Redis confirms its
// subscription to channel. Redis confirms the channels of a SUBSCRIBE in
// the order given, so channel's comes after own's.
func awaitSubscription(ctx context.Context, ps *redis.PubSub, channel string) error {
	for {
		msg, err := ps.Receive(ctx)
		if err != nil {
			return err
		}
		if s, ok := msg.(*redis.Subscription); ok && s.Channel == channel {
			return nil
		}
	}
}

// Close unsubscribes from Redis. Subscriptions stay open but receive
// nothing more; their owners close them.
func (b *Bus) Close() error {
	var err error
	b.once.Do(func() {
		b.RelayBus.Close()
		err = b.ps.Close()
		<-b.done
	})
	if err != nil {
		return fmt.Errorf("redis: closing the subscription to %s: %w", b.channel, err)
	}
	return nil
}

// dispatch hands the channel's messages to the RelayBus until the channel
// closes. A repeated confirmation of the subscription to the signal
// channel means the connection dropped and was restored (go-redis
// subscribes again to both channels in one SUBSCRIBE), and signals may
// have been lost meanwhile: the RelayBus wakes every subscription to
// re-read its task.
func (b *Bus) dispatch(ch <-chan any) {
	defer close(b.done)
	for msg := range ch {
		switch m := msg.(type) {
		case *redis.Message:
			if err := b.Receive(m.Payload); err != nil {
				b.log.Warn("redis: ignoring a malformed task signal", slog.String("channel", b.channel), slog.Any("error", err))
			}
		case *redis.Subscription:
			if m.Kind != "subscribe" || m.Channel != b.channel {
				continue
			}
			b.log.Info("redis: the task bus reconnected; waking every subscription to re-read its task",
				slog.String("channel", b.channel))
			b.Resync()
		}
	}
}
