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
