package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/weftmcp/weft/taskstore/postgres"
)

// Instances started together on a new schema all find it missing; the
// ones whose CREATE SCHEMA waited for the first one's open all the same.
func TestOpenWhileAnotherInstanceCreatesTheSchema(t *testing.T) {
	name := freshSchema(t)
	ctx := t.Context()
	other, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	tx, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	opened := make(chan error, 1)
	go func() {
		s, err := postgres.Open(ctx, connString(), postgres.WithSchema(name))
		if err == nil {
			s.Close()
		}
		opened <- err
	}()
	// Commit once the Open waits for the uncommitted schema, as seen from
	// outside the transaction (whose view of pg_stat_activity is fixed).
	watch, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(context.Background())
	for waiting := false; !waiting; {
		err := watch.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE 'CREATE SCHEMA IF NOT EXISTS %' AND position($1 IN query) > 0)`,
			name).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("Open alongside another instance creating the schema: %v", err)
	}
}
