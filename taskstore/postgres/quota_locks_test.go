package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/postgres"
)

// A creation takes the quotas' locks before its batch deletes long-expired
// tasks: rows it locked while it waited for a quota lock would deadlock
// with the transaction holding that lock if it wrote one of them, and
// PostgreSQL would abort the creation. Here another session holds the
// total's lock, the creation waits for it, and that session then updates
// the expired task the creation's backstop deletes: the creation must
// succeed once the lock is released, the expired task gone.
func TestACreationTakesTheQuotaLocksBeforeDeletingExpiredTasks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	schema := freshSchema(t)
	s := open(t, schema, postgres.WithExpiryGrace(time.Millisecond))
	expired := newTask("bob")
	expired.ExpiresAt = time.Now().Add(-time.Hour)
	if err := s.Create(ctx, expired, tasks.Quota{}); err != nil {
		t.Fatal(err)
	}

	holder, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '10s'`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(postgres.QuotaLockTotal)); err != nil {
		t.Fatal(err)
	}

	created := make(chan error, 1)
	go func() { created <- s.Create(ctx, newTask("alice"), tasks.Quota{Total: 1000}) }()
	waitForAdvisoryLockWaiter(ctx, t, holder.PgConn().PID(), created)

	// The holder writes the expired task while the creation waits for it.
	table := pgx.Identifier{schema, "weft_tasks"}.Sanitize()
	if _, err := tx.Exec(ctx, `UPDATE `+table+` SET status_message = 'touched' WHERE id = $1`, expired.ID); err != nil {
		t.Fatalf("the lock holder could not write the expired task: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-created; err != nil {
		t.Fatalf("Create failed once the quota lock was released: %v", err)
	}
	if _, err := s.Get(ctx, expired.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("Get(the long-expired task) = %v after the creation; want ErrNotFound (the backstop deletes it)", err)
	}
}

// waitForAdvisoryLockWaiter waits until a session other than the backend
// with PID holder waits for an advisory lock, failing if done ends first
// or ctx does.
func waitForAdvisoryLockWaiter(ctx context.Context, t *testing.T, holder uint32, done chan error) {
	t.Helper()
	conn, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for {
		var waiting int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND pid <> $1`,
			int32(holder)).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("Create ended (error %v) while the quota lock was held", err)
		case <-time.After(time.Millisecond):
		}
	}
}
