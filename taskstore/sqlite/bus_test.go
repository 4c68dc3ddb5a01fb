package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// openBus opens a Bus on path, closed when the test ends.
func openBus(t testing.TB, path string, opts ...sqlite.Option) *sqlite.Bus {
	t.Helper()
	b, err := sqlite.OpenBus(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("OpenBus(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Bus.Close: %v", err)
		}
	})
	return b
}

func TestBusContract(t *testing.T) {
	storetest.TestBus(t, func(t *testing.T) tasks.Bus { return openBus(t, dbPath(t)) })
}

// Two Buses on one file stand for two processes: signals cross by polling.
func TestBusPairContract(t *testing.T) {
	storetest.TestBusPair(t, func(t *testing.T) (tasks.Bus, tasks.Bus) {
		path := dbPath(t)
		return openBus(t, path, sqlite.WithPollInterval(5*time.Millisecond)),
			openBus(t, path, sqlite.WithPollInterval(5*time.Millisecond))
	})
}

func TestBusForgetsSignalsAfterTheRetention(t *testing.T) {
	path := dbPath(t)
	b := openBus(t, path, sqlite.WithRetention(time.Minute))
	db := rawDB(t, path)
	ctx := context.Background()
	old := time.Now().Add(-2 * time.Minute).UnixMilli()
	if _, err := db.Exec(`INSERT INTO weft_signals (origin, task_id, kind, published_ms) VALUES ('elsewhere', 'x', 'status', ?)`, old); err != nil {
		t.Fatalf("inserting an old signal: %v", err)
	}
	// Every 64th publish deletes what is older than the retention.
	for range 64 {
		if err := b.Publish(ctx, tasks.Signal{TaskID: "x", Kind: tasks.SignalStatus}); err != nil {
			t.Fatalf("Publish: %v", err)
		}
	}
	var stale, fresh int
	if err := db.QueryRow(`SELECT count(*) FILTER (WHERE published_ms <= ?), count(*) FILTER (WHERE published_ms > ?)
		FROM weft_signals`, old, old).Scan(&stale, &fresh); err != nil {
		t.Fatalf("counting signals: %v", err)
	}
	if stale != 0 || fresh != 64 {
		t.Fatalf("after pruning the file holds %d signals older than the retention and %d newer, want 0 and 64", stale, fresh)
	}
}

func TestClosedBusRefusesWork(t *testing.T) {
	b, err := sqlite.OpenBus(context.Background(), dbPath(t))
	if err != nil {
		t.Fatalf("OpenBus: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := b.Publish(context.Background(), tasks.Signal{TaskID: "x", Kind: tasks.SignalCancel}); err == nil {
		t.Errorf("Publish on a closed Bus succeeded")
	}
	if _, err := b.Subscribe(context.Background(), "x"); err == nil {
		t.Errorf("Subscribe on a closed Bus succeeded")
	}
}

// SubscribeFunc, which the Runtime's record cache uses, hears this Bus's
// signals on the publisher's goroutine and other Buses' at their poll, and
// nothing once closed.
func TestSubscribeFuncHearsEveryBusOnTheFile(t *testing.T) {
	path := dbPath(t)
	a := openBus(t, path, sqlite.WithPollInterval(5*time.Millisecond))
	b := openBus(t, path, sqlite.WithPollInterval(5*time.Millisecond))
	ctx := context.Background()
	heard := make(chan tasks.Signal, 4)
	sub, err := b.SubscribeFunc(ctx, "t1", func(s tasks.Signal) { heard <- s })
	if err != nil {
		t.Fatalf("SubscribeFunc: %v", err)
	}
	own := tasks.Signal{TaskID: "t1", Kind: tasks.SignalStatus}
	if err := b.Publish(ctx, own); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	select {
	case got := <-heard:
		if got != own {
			t.Fatalf("heard %+v; want %+v", got, own)
		}
	default:
		t.Fatalf("the Bus's own signal was not heard before Publish returned")
	}
	other := tasks.Signal{TaskID: "t1", Kind: tasks.SignalCancel}
	if err := a.Publish(ctx, other); err != nil {
		t.Fatalf("Publish on the other Bus: %v", err)
	}
	select {
	case got := <-heard:
		if got != other {
			t.Fatalf("heard %+v; want the other Bus's %+v", got, other)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the other Bus's signal was not heard within a minute")
	}
	sub.Close()
	if err := b.Publish(ctx, own); err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if len(heard) != 0 {
		t.Fatalf("heard %+v after Close", <-heard)
	}
	b.Close()
	if _, err := b.SubscribeFunc(ctx, "t1", func(tasks.Signal) {}); err == nil {
		t.Fatalf("SubscribeFunc on a closed Bus succeeded")
	}
}

// A Bus that read nothing while signals were written and then pruned (a
// process paused, or unable to read the file, for longer than the
// retention) wakes every subscription to read its task again, as a
// reconnecting PostgreSQL or Redis Bus does, since the cancel or answer it
// missed is gone from the file.
func TestBusThatMissedPrunedSignalsWakesItsSubscriptions(t *testing.T) {
	path := dbPath(t)
	late := openBus(t, path, sqlite.WithPollInterval(time.Hour)) // reads only when SubscribeAll catches up
	ctx := context.Background()
	sub, err := late.Subscribe(ctx, "t")
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	defer sub.Close()
	old := time.Now().Add(-2 * time.Minute).UnixMilli()
	if _, err := rawDB(t, path).Exec(`INSERT INTO weft_signals (origin, task_id, kind, published_ms) VALUES ('elsewhere', 't', 'cancel', ?)`, old); err != nil {
		t.Fatalf("inserting the signal the Bus misses: %v", err)
	}
	pruning := openBus(t, path, sqlite.WithRetention(time.Minute))
	for range 64 { // the 64th publish deletes what is older than the retention
		if err := pruning.Publish(ctx, tasks.Signal{TaskID: "other", Kind: tasks.SignalStatus}); err != nil {
			t.Fatalf("Publish: %v", err)
		}
	}
	feed, err := late.SubscribeAll(ctx)
	if err != nil {
		t.Fatalf("SubscribeAll: %v", err)
	}
	defer feed.Close()
	select {
	case s := <-sub.Signals():
		if s.TaskID != "t" {
			t.Fatalf("the subscription to t received %+v", s)
		}
	default:
		t.Fatalf("the Bus caught up past a pruned signal of t without waking t's subscription")
	}
}
