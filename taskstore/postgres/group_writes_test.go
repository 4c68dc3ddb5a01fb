package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/postgres"
)

// holdTotalQuotaLock takes the advisory lock serializing the total quota's
// checks on a connection of its own, so that a Create under a total quota
// waits in PostgreSQL, keeping its batch in flight, until release is
// called.
func holdTotalQuotaLock(t *testing.T) (release func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(postgres.QuotaLockTotal)); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			conn.Close(ctx) // ends the session, and its lock
		}
	}
	t.Cleanup(release)
	return release
}

// createAll starts a Create under a total quota of each record, returning
// each one's outcome on its channel.
func createAll(ctx context.Context, s *postgres.Store, recs []*tasks.Record) []chan error {
	outcomes := make([]chan error, len(recs))
	for i, rec := range recs {
		outcomes[i] = make(chan error, 1)
		go func() { outcomes[i] <- s.Create(ctx, rec, tasks.Quota{Total: 1000}) }()
	}
	return outcomes
}

// waitQueued waits until a batch of s's writes is in flight and n writes
// wait for it, failing if a write of pending, all held by the lock, ends
// meanwhile.
func waitQueued(t *testing.T, s *postgres.Store, n int, pending ...chan error) {
	t.Helper()
	for {
		if inFlight, queued := s.Writes(); inFlight && queued == n {
			return
		}
		for _, ch := range pending {
			select {
			case err := <-ch:
				t.Fatalf("a write ended (error %v) while the batch in flight is held: it did not wait for that batch", err)
			default:
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// xmin returns the transaction that wrote the task's row.
func xmin(t *testing.T, schema, id string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var x string
	table := pgx.Identifier{schema, "weft_tasks"}.Sanitize()
	if err := conn.QueryRow(ctx, `SELECT xmin::text FROM `+table+` WHERE id = $1`, id).Scan(&x); err != nil {
		t.Fatalf("reading the row of task %s: %v", id, err)
	}
	return x
}

// Writes made while a batch is in flight go together in the next one: one
// transaction writes them all.
func TestWritesMadeMeanwhileShareATransaction(t *testing.T) {
	schema := freshSchema(t)
	s := open(t, schema)
	release := holdTotalQuotaLock(t)
	recs := []*tasks.Record{newTask("a"), newTask("b"), newTask("c"), newTask("d")}
	first := createAll(context.Background(), s, recs[:1])
	waitQueued(t, s, 0, first...) // the first write goes at once...
	rest := createAll(context.Background(), s, recs[1:])
	waitQueued(t, s, len(recs)-1, append(first, rest...)...) // ...and the others wait for it, held by the lock
	release()
	for i, ch := range append(first, rest...) {
		if err := <-ch; err != nil {
			t.Fatalf("Create of task %d: %v", i, err)
		}
	}
	firstTx := xmin(t, schema, recs[0].ID)
	batchTx := xmin(t, schema, recs[1].ID)
	for _, rec := range recs[2:] {
		if x := xmin(t, schema, rec.ID); x != batchTx {
			t.Errorf("task %s was written by transaction %s, the others queued with it by %s: want one transaction", rec.ID, x, batchTx)
		}
	}
	if firstTx == batchTx {
		t.Errorf("the write in flight and the writes queued behind it share transaction %s", firstTx)
	}
}

// A write refused in a batch (a taken ID) and a write whose statement
// fails (text PostgreSQL rejects) get their own errors; the other writes
// of the batch are stored.
func TestAWriteThatFailsInABatchFailsAlone(t *testing.T) {
	schema := freshSchema(t)
	s := open(t, schema)
	taken := newTask("a")
	if err := s.Create(context.Background(), taken, tasks.Quota{}); err != nil {
		t.Fatal(err)
	}
	release := holdTotalQuotaLock(t)
	first := createAll(context.Background(), s, []*tasks.Record{newTask("a")})
	waitQueued(t, s, 0, first...)
	again, bad := *taken, newTask("a")
	again.Version = 0
	bad.Name = "echo\x00" // PostgreSQL's text holds no NUL
	good := []*tasks.Record{newTask("b"), newTask("c")}
	outcomes := createAll(context.Background(), s, []*tasks.Record{good[0], &again, bad, good[1]})
	waitQueued(t, s, 4, append(first, outcomes...)...)
	release()
	if err := <-first[0]; err != nil {
		t.Fatalf("Create of the write in flight: %v", err)
	}
	if err := <-outcomes[1]; !errors.Is(err, tasks.ErrExists) {
		t.Errorf("Create of a taken ID in a batch: %v, want ErrExists", err)
	}
	if err := <-outcomes[2]; err == nil || !strings.Contains(err.Error(), bad.ID) {
		t.Errorf("Create of a name PostgreSQL rejects in a batch: %v, want an error naming the task", err)
	}
	for i, rec := range good {
		if err := <-outcomes[[]int{0, 3}[i]]; err != nil {
			t.Errorf("Create of task %s, in a batch with a failing write: %v", rec.ID, err)
		}
		if _, err := s.Get(context.Background(), rec.ID); err != nil {
			t.Errorf("Get of task %s, stored in a batch with a failing write: %v", rec.ID, err)
		}
	}
}

// A write whose caller gives up while it waits for a batch is dropped: it
// returns the context's error at once and is never made.
func TestAQueuedWriteGivenUpOnIsDropped(t *testing.T) {
	schema := freshSchema(t)
	s := open(t, schema)
	release := holdTotalQuotaLock(t)
	first := createAll(context.Background(), s, []*tasks.Record{newTask("a")})
	waitQueued(t, s, 0, first...)
	ctx, cancel := context.WithCancel(context.Background())
	dropped := newTask("a")
	outcome := createAll(ctx, s, []*tasks.Record{dropped})
	waitQueued(t, s, 1, append(first, outcome...)...)
	cancel()
	if err := <-outcome[0]; !errors.Is(err, context.Canceled) {
		t.Fatalf("Create given up on while queued: %v, want context.Canceled", err)
	}
	release()
	if err := <-first[0]; err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(context.Background(), dropped.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get of the task whose write was given up on: %v, want ErrNotFound", err)
	}
}

// TestQuotaChecksReadOnlyUnfinishedTasksWithoutStatistics creates tasks
// under quotas in a table of many finished tasks that has never been
// analyzed, as a new deployment's is for its first minute or more: the
// quota counts must read the index of unfinished tasks, not every row,
// however the planner would guess without statistics.
func TestQuotaChecksReadOnlyUnfinishedTasksWithoutStatistics(t *testing.T) {
	const finished = 20_000
	ctx := context.Background()
	s := storeWithoutStatistics(t, "weft_tasks")
	pool := s.Pool()
	if _, err := pool.Exec(ctx, `INSERT INTO weft_tasks (id, principal, method, name, policy_rerun, policy_max_runs,
			status, status_message, poll_interval_ns, is_error, owner, runs, version, unfinished, expires_ns)
		SELECT 'done-' || g, 'p', 'tools/call', 'echo', false, 0, 'completed', '', 0, false, '', 1, 2, false, 9e18::bigint
		FROM generate_series(1, $1::int) AS g`, finished); err != nil {
		t.Fatalf("filling the table with finished tasks: %v", err)
	}
	before := seqScanned(t, pool, "weft_tasks")
	const creations = 10 // past the 5 custom plans PostgreSQL makes before a generic one
	quota := tasks.Quota{Total: 10_000, PerPrincipal: creations}
	for range creations {
		if err := s.Create(ctx, newTask("p"), quota); err != nil {
			t.Fatal(err)
		}
	}
	// As many more are refused, each reading the counts again to say why.
	for range creations {
		var limit *tasks.LimitError
		if err := s.Create(ctx, newTask("p"), quota); !errors.As(err, &limit) || limit.Scope != tasks.LimitPrincipal {
			t.Fatalf("a creation past the principal's quota: %v, want a LimitError of the principal's", err)
		}
	}
	if read := seqScanned(t, pool, "weft_tasks") - before; read >= finished {
		t.Errorf("%d creations and as many refusals read %d rows of weft_tasks in sequential scans (%d finished tasks in it): the quota counts scan the table", creations, read, finished)
	}
}
