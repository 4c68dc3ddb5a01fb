package redis_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/tasks"
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
