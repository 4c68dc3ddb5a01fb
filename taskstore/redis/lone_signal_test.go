package redis_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/redis"
)

// A lone instance's writes publish nothing: their signals reach its own
// subscriptions through its RelayBus, and no one else listens. Once
// another instance's Bus subscribes, they are published and reach it; once
// it has left, they are not published again. Counted on a Redis of the
// test's own, whose command statistics count the PUBLISH a script calls.
func TestWritesPublishOnlyWhileAnotherInstanceListens(t *testing.T) {
	opts := privateRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := goredis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	prefix := newPrefix(t)
	s := newStoreOn(t, client, prefix)
	relay := s.SignalsTo(newBusOn(t, client, prefix))
	if relay == nil {
		t.Fatal("the Store is not paired with the Bus on its client")
	}
	channel := "{" + prefix + "}:signals"
	publishes := func() int {
		t.Helper()
		info, err := client.Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatalf("INFO commandstats: %v", err)
		}
		_, stats, found := strings.Cut(info, "cmdstat_publish:calls=")
		if !found {
			return 0
		}
		n, err := strconv.Atoi(stats[:strings.IndexByte(stats, ',')])
		if err != nil {
			t.Fatalf("INFO commandstats: %v", err)
		}
		return n
	}
	create := func() *tasks.Record {
		t.Helper()
		rec := newTask()
		msg := relay.Message(tasks.Signal{TaskID: rec.ID, Kind: tasks.SignalCreated})
		if err := s.CreateSignalling(ctx, rec, tasks.Quota{}, msg); err != nil {
			t.Fatalf("CreateSignalling: %v", err)
		}
		return rec
	}
	update := func(rec *tasks.Record) {
		t.Helper()
		done := *rec
		done.Status, done.Result, done.UpdatedAt = tasks.StatusCompleted, []byte(`{}`), time.Now()
		if err := s.UpdateSignalling(ctx, &done, relay.Message(tasks.Signal{TaskID: rec.ID, Kind: tasks.SignalStatus})); err != nil {
			t.Fatalf("UpdateSignalling: %v", err)
		}
	}

	before := publishes()
	update(create())
	if n := publishes() - before; n != 0 {
		t.Errorf("a lone instance's create and update published %d messages; want none", n)
	}

	otherClient := goredis.NewClient(opts)
	t.Cleanup(func() { otherClient.Close() })
	other := newBusOn(t, otherClient, prefix)
	rec := newTask()
	sub, err := other.Subscribe(ctx, rec.ID)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer sub.Close()
	before = publishes()
	if err := s.CreateSignalling(ctx, rec, tasks.Quota{}, relay.Message(tasks.Signal{TaskID: rec.ID, Kind: tasks.SignalCreated})); err != nil {
		t.Fatalf("CreateSignalling: %v", err)
	}
	select {
	case sig := <-sub.Signals():
		if sig.TaskID != rec.ID || sig.Kind != tasks.SignalCreated {
			t.Errorf("the other instance heard %+v; want the creation of %s", sig, rec.ID)
		}
	case <-ctx.Done():
		t.Fatal("the other instance never heard of the task's creation")
	}
	if n := publishes() - before; n != 1 {
		t.Errorf("with another instance listening, a create published %d messages; want 1", n)
	}

	if err := other.Close(); err != nil {
		t.Fatalf("closing the other Bus: %v", err)
	}
	for { // Redis drops a closed connection's subscription on its own time
		counts, err := client.PubSubNumSub(ctx, channel).Result()
		if err != nil {
			t.Fatalf("PUBSUB NUMSUB: %v", err)
		}
		if counts[channel] == 1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the other Bus still subscribed after it closed: %d subscribers", counts[channel])
		case <-time.After(5 * time.Millisecond):
		}
	}
	before = publishes()
	update(create())
	if n := publishes() - before; n != 0 {
		t.Errorf("once the other instance left, a create and update published %d messages; want none", n)
	}
}

// A write's signal reaches another instance while the writer's own Bus is
// unsubscribed: its connection dropped (a network blip, or Redis closing a
// slow pub/sub client at its client-output-buffer-limit) and has not come
// back. The one subscriber left is the other instance, which must not be
// taken for the writer's own: it never disconnected, so it never re-reads
// on its own. The write runs once Redis has dropped the Bus's
// subscription, whether or not the Bus has noticed yet. The other
// instance must hear the cancel before a marker published after the write
// (Redis delivers a connection's messages in publish order).
func TestAWriteIsPublishedWhileTheWritersBusIsReconnecting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	prefix := newPrefix(t)
	storeA, busA, dropBusA := newInstanceWithDroppableBus(t, prefix)
	relayA := storeA.SignalsTo(busA)
	if relayA == nil {
		t.Fatal("A's Store is not paired with A's Bus")
	}
	busB := newBus(t, prefix)
	rec := newTask()
	if err := storeA.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	sub, err := busB.Subscribe(ctx, rec.ID)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer sub.Close()

	dropBusA(ctx)
	// A cancels the task (as Runtime.Cancel does, through UpdateSignalling).
	got, err := storeA.Get(ctx, rec.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	got.Status, got.StatusMessage, got.UpdatedAt = tasks.StatusCancelled, "cancelled by request", time.Now()
	if err := storeA.UpdateSignalling(ctx, got, relayA.Message(tasks.Signal{TaskID: rec.ID, Kind: tasks.SignalCancel})); err != nil {
		t.Fatalf("UpdateSignalling: %v", err)
	}
	channel := "{" + prefix + "}:signals"
	if err := newClient(t).Publish(ctx, channel, string(tasks.SignalStatus)+" marker "+rec.ID).Err(); err != nil {
		t.Fatalf("PUBLISH: %v", err)
	}
	if first := recv(t, sub.Signals(), "a signal on B"); first.Kind != tasks.SignalCancel {
		t.Fatalf("B first heard %+v, the marker published after A's cancel: A's cancel signal was never published", first)
	}
}

// The same through two Runtimes, where a lost signal is not a mere delay:
// B has read a task running on A (working) for a client that polls through
// B, and B's record cache trusts that copy until a signal about the task
// arrives. A's Bus is unsubscribed when the handler finishes; no signal
// about the task would come after its outcome, so B would answer
// "working" for as long as it kept the copy. Once B's Bus has passed on a
// marker published after A's write, B must read the task as completed.
func TestAnotherInstanceHearsAnOutcomeWrittenWhileTheWritersBusIsReconnecting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	prefix := newPrefix(t)
	quiet := []tasks.Option{tasks.WithLease(time.Hour, 30*time.Minute), tasks.WithSweepInterval(time.Hour)}
	storeA, busA, dropBusA := newInstanceWithDroppableBus(t, prefix)
	a := newRuntime(t, storeA, busA, append(quiet, tasks.WithInstanceID("instance-a"))...)
	clientB := newClient(t)
	busB := newBusOn(t, clientB, prefix)
	b := newRuntime(t, newStoreOn(t, clientB, prefix), busB, append(quiet, tasks.WithInstanceID("instance-b"))...)

	release := make(chan struct{})
	a.Register("tools/call", "wait", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		select {
		case <-release:
			return tasks.Result{Value: []byte(`{"ok":true}`)}, nil
		case <-ctx.Done():
			return tasks.Result{}, context.Cause(ctx)
		}
	}, tasks.Policy{})
	task, err := a.Start(ctx, tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "wait", Params: []byte(`{}`)})
	if err != nil {
		t.Fatalf("Start on A: %v", err)
	}
	if got, err := b.Get(ctx, "alice", task.ID); err != nil || got.Status != tasks.StatusWorking {
		t.Fatalf("B reads the task as %v (%v); want working", got.Status, err)
	}

	dropBusA(ctx)
	// The handler finishes on A, whose Runtime tells A's own subscriptions
	// of the outcome once it is stored.
	onA, err := busA.Subscribe(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer onA.Close()
	close(release)
	for {
		recv(t, onA.Signals(), "a signal on A")
		rec, err := storeA.Get(ctx, task.ID)
		if err != nil {
			t.Fatalf("Get from the store: %v", err)
		}
		if rec.Status == tasks.StatusCompleted {
			break
		}
	}
	// A marker about another task, published after A's write: once B's Bus
	// has passed it on, it has passed on every message published before.
	markerSub, err := busB.Subscribe(ctx, "marker")
	if err != nil {
		t.Fatal(err)
	}
	defer markerSub.Close()
	channel := "{" + prefix + "}:signals"
	if err := newClient(t).Publish(ctx, channel, string(tasks.SignalStatus)+" marker-origin marker").Err(); err != nil {
		t.Fatalf("PUBLISH: %v", err)
	}
	recv(t, markerSub.Signals(), "the marker on B")
	got, err := b.Get(ctx, "alice", task.ID)
	if err != nil {
		t.Fatalf("B.Get: %v", err)
	}
	if got.Status != tasks.StatusCompleted {
		t.Fatalf("B serves the task as %q although it completed on A: A's outcome signal was never published", got.Status)
	}
}

// newInstanceWithDroppableBus returns an instance's Store and Bus on one
// client of their own with the prefix, and dropBus, which cuts the Bus's
// connection, keeps it from subscribing again, and returns once Redis has
// dropped its subscription (the Bus itself may not have noticed yet).
func newInstanceWithDroppableBus(t *testing.T, prefix string) (s *redis.Store, b *redis.Bus, dropBus func(context.Context)) {
	t.Helper()
	needRedis(t)
	var gate subscribeGate
	opts := *redisOptions
	opts.Dialer = gate.dial
	c := goredis.NewClient(&opts)
	t.Cleanup(func() { c.Close() })
	s = newStoreOn(t, c, prefix)
	if err := c.Ping(context.Background()).Err(); err != nil { // a pooled connection for the Store's writes
		t.Fatal(err)
	}
	before := gate.count()
	b = newBusOn(t, c, prefix)
	if n := gate.count() - before; n != 1 {
		t.Fatalf("NewBus dialled %d connections; want 1", n)
	}
	busConn := gate.conn(before)
	channel := "{" + prefix + "}:signals"
	other := newClient(t)
	return s, b, func(ctx context.Context) {
		t.Helper()
		subscribers := func() int64 {
			n, err := other.PubSubNumSub(ctx, channel).Result()
			if err != nil {
				t.Fatalf("PUBSUB NUMSUB: %v", err)
			}
			return n[channel]
		}
		want := subscribers() - 1
		gate.close()
		busConn.Close()
		for subscribers() != want { // Redis drops a closed connection's subscription on its own time
			select {
			case <-ctx.Done():
				t.Fatalf("the Bus is still subscribed after its connection was cut")
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}

// subscribeGate dials Redis and remembers every connection; once closed,
// a connection that sends SUBSCRIBE is cut instead, so a Bus whose
// connection was cut cannot come back while the client's other
// connections, and new ones, keep working.
type subscribeGate struct {
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

// gatedConn is a connection subscribeGate dialled.
type gatedConn struct {
	net.Conn
	g *subscribeGate
}

// subscribeCmd is how the SUBSCRIBE command's name goes on the wire.
var subscribeCmd = []byte("$9\r\nsubscribe\r\n")

func (c *gatedConn) Write(p []byte) (int, error) {
	c.g.mu.Lock()
	closed := c.g.closed
	c.g.mu.Unlock()
	if closed && bytes.Contains(bytes.ToLower(p), subscribeCmd) {
		c.Conn.Close()
		return 0, errors.New("subscribing is refused")
	}
	return c.Conn.Write(p)
}

func (g *subscribeGate) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	gc := &gatedConn{Conn: conn, g: g}
	g.mu.Lock()
	g.conns = append(g.conns, gc)
	g.mu.Unlock()
	return gc, nil
}

// count returns how many connections g has dialled.
func (g *subscribeGate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}

// conn returns the ith connection g dialled.
func (g *subscribeGate) conn(i int) net.Conn {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.conns[i]
}

// close refuses every SUBSCRIBE from now on.
func (g *subscribeGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
