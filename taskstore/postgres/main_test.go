package postgres_test

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/weftmcp/weft/taskstore/postgres"
)

// The tests run against a real PostgreSQL: $WEFT_POSTGRES_URL, else the
// server on 127.0.0.1:5432 (database test, user postgres). Each test gets
// a schema of its own, dropped when it ends. Without a server the tests
// skip, except under CI=true, where that is a failure.

// connString names the test database.
func connString() string {
	if u := os.Getenv("WEFT_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
}

// oneConnection returns connString with the pool bounded to one
// connection.
func oneConnection(t testing.TB) string {
	t.Helper()
	c := connString()
	if !strings.Contains(c, "://") {
		return c + " pool_max_conns=1" // a key=value DSN
	}
	u, err := url.Parse(c)
	if err != nil {
		t.Fatalf("the PostgreSQL URL %q: %v", c, err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	return u.String()
}

// freshSchema returns the name of a new schema for t, dropped at its end.
func freshSchema(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, connString())
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no PostgreSQL at %s (set WEFT_POSTGRES_URL): %v", connString(), err)
		}
		t.Skipf("no PostgreSQL at %s (set WEFT_POSTGRES_URL; this fails under CI=true): %v", connString(), err)
	}
	conn.Close(ctx)
	name := "weft_test_" + strings.ToLower(rand.Text()[:12])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, connString())
		if err != nil {
			t.Errorf("dropping the test schema: %v", err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{name}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("dropping the test schema: %v", err)
		}
	})
	return name
}

// open opens a Store in schema, closed when the test ends.
func open(t testing.TB, schema string, opts ...postgres.Option) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), connString(), append([]postgres.Option{postgres.WithSchema(schema)}, opts...)...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// seqScanned returns how many rows sequential scans have read from table,
// after flushing the counts of pool's connections to the statistics: on a
// store opened with oneConnection, every statement the test made through
// it.
func seqScanned(t *testing.T, pool *pgxpool.Pool, table string) int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatalf("flushing statistics (PostgreSQL 15 or later): %v", err)
	}
	var n int64
	if err := pool.QueryRow(ctx, `SELECT seq_tup_read FROM pg_stat_user_tables WHERE relid = $1::regclass`, table).Scan(&n); err != nil {
		t.Fatalf("reading the statistics of %s: %v", table, err)
	}
	return n
}

// storeWithoutStatistics opens a store on a fresh schema through one
// connection (see seqScanned), with autovacuum off for table, so that the
// planner has no statistics for it: a new deployment's table.
func storeWithoutStatistics(t *testing.T, table string) *postgres.Store {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, oneConnection(t), postgres.WithSchema(freshSchema(t)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Pool().Exec(ctx, `ALTER TABLE `+pgx.Identifier{table}.Sanitize()+` SET (autovacuum_enabled = off)`); err != nil {
		t.Fatal(err)
	}
	return s
}
