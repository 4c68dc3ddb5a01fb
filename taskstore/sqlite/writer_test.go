package sqlite_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// lockFile takes the file's write lock from a connection of its own, as
// another process would, and returns the function that lets it go.
func lockFile(t *testing.T, path string) (unlock func()) {
	t.Helper()
	conn, err := rawDB(t, path).Conn(context.Background())
	if err != nil {
		t.Fatalf("Conn: %v", err)
	}
	if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatalf("taking the write lock: %v", err)
	}
	return func() {
		if _, err := conn.ExecContext(context.Background(), `COMMIT`); err != nil {
			t.Errorf("letting the write lock go: %v", err)
		}
		conn.Close()
	}
}

// awaitWriter waits until the file's writer has taken a write and waits
// for the lock with it, and queued writes wait behind.
func awaitWriter(t *testing.T, path string, queued int) {
	t.Helper()
	for {
		n, busy := sqlite.WriterState(path)
		if busy && n == queued {
			return
		}
		// Until the writer takes the first write off the queue, that write
		// is queued too: only while the writer waits for the lock are the
		// queued writes the ones behind it.
		if busy && n > queued {
			t.Fatalf("%d writes queued behind the one waiting for the lock, want %d", n, queued)
		}
		time.Sleep(time.Millisecond) // both states last until the lock goes
	}
}

// outcome is a write's error, by what it wrote.
type outcome struct {
	what string
	err  error
}

func TestWritesQueuedTogetherCommitTogetherAndFailAlone(t *testing.T) {
	path := dbPath(t)
	s := open(t, path)
	ctx := context.Background()
	stale := storetest.WorkingRecord()
	if err := s.Create(ctx, stale, tasks.Quota{}); err != nil {
		t.Fatal(err)
	}
	fresh := *stale
	fresh.StatusMessage = "moved on"
	if err := s.Update(ctx, &fresh); err != nil {
		t.Fatal(err)
	}
	// A task that expired long ago, which a Create drops as it writes the
	// new task (see WithExpiryGrace), unless the Create is refused.
	old := storetest.WorkingRecord()
	old.ExpiresAt = old.CreatedAt.Add(-2 * sqlite.DefaultExpiryGrace)
	if err := s.Create(ctx, old, tasks.Quota{}); err != nil {
		t.Fatal(err)
	}
	commitsBefore, _ := sqlite.WriterCounts(path)

	unlock := lockFile(t, path)
	first := storetest.WorkingRecord()
	first.CreatedAt = old.ExpiresAt.Add(-time.Hour) // too early to drop the old task
	outcomes := make(chan outcome)
	go func() { outcomes <- outcome{"first", s.Create(ctx, first, tasks.Quota{})} }()
	awaitWriter(t, path, 0)
	// Queued behind the first: two new tasks, a task that exists, a
	// compare-and-swap on a version that is gone, and a task over its
	// quota, refused after the Create dropped the long-expired task.
	created := []*tasks.Record{storetest.WorkingRecord(), storetest.WorkingRecord()}
	for _, rec := range created {
		rec.CreatedAt = old.ExpiresAt.Add(-time.Hour) // too early to drop the old task
		go func() { outcomes <- outcome{"new " + rec.ID, s.Create(ctx, rec, tasks.Quota{})} }()
	}
	go func() {
		outcomes <- outcome{"refused", s.Create(ctx, storetest.WorkingRecord(), tasks.Quota{Total: 1})}
	}()
	dup := storetest.WorkingRecord()
	dup.ID = stale.ID
	go func() { outcomes <- outcome{"duplicate", s.Create(ctx, dup, tasks.Quota{})} }()
	go func() {
		stale.StatusMessage = "from an old read"
		outcomes <- outcome{"stale", s.Update(ctx, stale)}
	}()
	awaitWriter(t, path, 5)
	unlock()

	for range 6 {
		o := <-outcomes
		switch o.what {
		case "duplicate":
			if !errors.Is(o.err, tasks.ErrExists) {
				t.Errorf("Create of a taken ID in a batch: got %v, want ErrExists", o.err)
			}
		case "refused":
			if !errors.Is(o.err, tasks.ErrLimit) {
				t.Errorf("Create over the quota in a batch: got %v, want a LimitError", o.err)
			}
		case "stale":
			if !errors.Is(o.err, tasks.ErrConflict) {
				t.Errorf("Update of a gone version in a batch: got %v, want ErrConflict", o.err)
			}
		default:
			if o.err != nil {
				t.Errorf("%s: %v", o.what, o.err)
			}
		}
	}
	commits, _ := sqlite.WriterCounts(path)
	if n := commits - commitsBefore; n != 2 {
		t.Errorf("%d transactions committed, want 2: the first write, then the five queued behind it", n)
	}
	reader := open(t, path)
	for _, rec := range append(created, first) {
		if _, err := reader.Get(ctx, rec.ID); err != nil {
			t.Errorf("a task created in a batch: Get: %v", err)
		}
	}
	if got, err := reader.Get(ctx, stale.ID); err != nil || got.StatusMessage != "moved on" || got.Principal != stale.Principal {
		t.Errorf("the task the failed writes aimed at: got %+v, %v; want it as the last good update left it", got, err)
	}
	if _, err := reader.Get(ctx, old.ID); err != nil {
		t.Errorf("the long-expired task a refused Create had dropped: Get returned %v, want it kept (the refusal undoes the Create's writes)", err)
	}
}

func TestQueuedWriteGivesUpWithItsContext(t *testing.T) {
	path := dbPath(t)
	s := open(t, path)
	unlock := lockFile(t, path)
	first := storetest.WorkingRecord()
	firstDone := make(chan error)
	go func() { firstDone <- s.Create(context.Background(), first, tasks.Quota{}) }()
	awaitWriter(t, path, 0)

	ctx, cancel := context.WithCancel(context.Background())
	dropped := storetest.WorkingRecord()
	droppedDone := make(chan error)
	go func() { droppedDone <- s.Create(ctx, dropped, tasks.Quota{}) }()
	awaitWriter(t, path, 1)
	cancel()
	if err := <-droppedDone; !errors.Is(err, context.Canceled) {
		t.Errorf("a queued Create whose context ended: got %v, want context.Canceled", err)
	}
	unlock()
	if err := <-firstDone; err != nil {
		t.Errorf("the Create the writer had taken: %v", err)
	}
	if _, err := s.Get(context.Background(), dropped.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("the Create that gave up: Get returned %v, want ErrNotFound (nothing written)", err)
	}
}

func TestStoreAndBusOfOneFileShareTheWriter(t *testing.T) {
	path := dbPath(t)
	s, bus := open(t, path), openBus(t, path)
	ctx := context.Background()
	unlock := lockFile(t, path)
	rec := storetest.WorkingRecord()
	created := make(chan error)
	go func() { created <- s.Create(ctx, rec, tasks.Quota{}) }()
	awaitWriter(t, path, 0)
	published := make(chan error)
	go func() { published <- bus.Publish(ctx, tasks.Signal{TaskID: rec.ID, Kind: tasks.SignalStatus}) }()
	awaitWriter(t, path, 1) // the Bus's write waits in the Store's queue, not on the lock
	unlock()
	if err := <-created; err != nil {
		t.Errorf("Create: %v", err)
	}
	if err := <-published; err != nil {
		t.Errorf("Publish: %v", err)
	}
	var n int
	if err := rawDB(t, path).QueryRow(`SELECT count(*) FROM weft_signals WHERE task_id = ?`, rec.ID).Scan(&n); err != nil || n != 1 {
		t.Errorf("signals written for the task: %d (%v), want 1", n, err)
	}
}
