package redis_test

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/redis"
)

// newBus returns a Bus with its own client on the prefix, closed when the
// test ends.
func newBus(t testing.TB, prefix string) *redis.Bus {
	t.Helper()
	return newBusOn(t, newClient(t), prefix)
}

func newBusOn(t testing.TB, c goredis.UniversalClient, prefix string) *redis.Bus {
	t.Helper()
	b, err := redis.NewBus(context.Background(), c, redis.WithPrefix(prefix),
		redis.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("NewBus: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Bus.Close: %v", err)
		}
	})
	return b
}

func TestBusContract(t *testing.T) {
	needRedis(t)
	storetest.TestBus(t, func(t *testing.T) tasks.Bus { return newBus(t, newPrefix(t)) })
}

// Two Buses with their own connections on one prefix stand for two instances.
func TestBusPairContract(t *testing.T) {
	needRedis(t)
	storetest.TestBusPair(t, func(t *testing.T) (tasks.Bus, tasks.Bus) {
		prefix := newPrefix(t)
		return newBus(t, prefix), newBus(t, prefix)
	})
}

func TestBusesWithOtherPrefixesHearNothing(t *testing.T) {
	ctx := context.Background()
	one, two := newPrefix(t), newPrefix(t)
	publisherOne, publisherTwo := newBus(t, one), newBus(t, two)
	listener := newBus(t, two)
	sub, err := listener.Subscribe(ctx, "same-id")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer sub.Close()
	// Redis pushes a message to every subscribed connection before PUBLISH
	// returns, in order: had the listener heard prefix one, the cancel would
	// come before the input signal.
	if err := publisherOne.Publish(ctx, tasks.Signal{TaskID: "same-id", Kind: tasks.SignalCancel}); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if err := publisherTwo.Publish(ctx, tasks.Signal{TaskID: "same-id", Kind: tasks.SignalInput}); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if got := recv(t, sub.Signals(), "a signal"); got.Kind != tasks.SignalInput {
		t.Fatalf("a Bus on prefix two received %+v, published on prefix one", got)
	}
}

func TestBusWakesSubscriptionsWhenItsConnectionComesBack(t *testing.T) {
	needRedis(t)
	ctx := context.Background()
	prefix := newPrefix(t)
	var link cuttableLink
	opts := *redisOptions
	opts.Dialer = link.dial
	c := goredis.NewClient(&opts)
	t.Cleanup(func() { c.Close() })
	b := newBusOn(t, c, prefix)
	sub, err := b.Subscribe(ctx, "task-1")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer sub.Close()

	link.cut() // a signal published now would be lost with the connection
	if got := recv(t, sub.Signals(), "the wake-up after reconnecting"); got != (tasks.Signal{TaskID: "task-1", Kind: tasks.SignalStatus}) {
		t.Fatalf("after reconnecting the subscription received %+v", got)
	}
	if err := newBus(t, prefix).Publish(ctx, tasks.Signal{TaskID: "task-1", Kind: tasks.SignalCancel}); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if got := recv(t, sub.Signals(), "a signal after reconnecting"); got.Kind != tasks.SignalCancel {
		t.Fatalf("after reconnecting the subscription received %+v", got)
	}
}

// cuttableLink dials Redis and can cut every connection it made.
type cuttableLink struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (l *cuttableLink) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, conn)
		l.mu.Unlock()
	}
	return conn, err
}

func (l *cuttableLink) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
	l.conns = nil
}

// recv receives from ch or fails the test at the deadline.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(deadline):
		t.Fatalf("timed out after %v waiting for %s", deadline, what)
	}
	var zero T
	return zero
}

// deadline bounds every wait in these tests.
const deadline = 10 * time.Second
