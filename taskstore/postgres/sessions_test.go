package postgres_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/sessions/sessiontest"
)

func TestSessionStoreContract(t *testing.T) {
	sessiontest.TestStore(t, func(t *testing.T) sessions.Store { return open(t, freshSchema(t)).Sessions() })
}

// Two Stores on one schema stand for two instances sharing the database.
func TestSessionStorePairContract(t *testing.T) {
	sessiontest.TestStorePair(t, func(t *testing.T) (sessions.Store, sessions.Store) {
		schema := freshSchema(t)
		return open(t, schema).Sessions(), open(t, schema).Sessions()
	})
}

func TestMessageLogContract(t *testing.T) {
	sessiontest.TestMessageLog(t, func(t *testing.T) sessions.MessageLog { return open(t, freshSchema(t)).Messages() })
}

// Two Stores on one schema stand for two instances routing messages.
func TestMessageLogPairContract(t *testing.T) {
	sessiontest.TestMessageLogPair(t, func(t *testing.T) (sessions.MessageLog, sessions.MessageLog) {
		schema := freshSchema(t)
		return open(t, schema).Messages(), open(t, schema).Messages()
	})
}

// A schema whose sessions were stored before the index by URI existed gets
// their subscriptions indexed when it is opened, ended sessions' aside.
func TestMigrationIndexesTheSubscriptionsOfStoredSessions(t *testing.T) {
	ctx := context.Background()
	schema := freshSchema(t)
	s := open(t, schema)
	ss := s.Sessions()
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for _, id := range []string{"s1", "s2", "gone"} {
		rec := &sessions.Record{ID: id, Subscriptions: []string{"file:///x", "file:///" + id}, CreatedAt: at, LastSeen: at}
		if err := ss.Create(ctx, rec); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	if err := ss.End(ctx, "gone", ""); err != nil {
		t.Fatalf("End: %v", err)
	}
	s.Close()
	// Back to the schema of version 3, as an older weft left it.
	conn, err := pgx.Connect(ctx, connString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{`DROP TABLE weft_session_subscribers`, `UPDATE weft_schema SET version = 3`} {
		if _, err := conn.Exec(ctx, `SET search_path TO `+pgx.Identifier{schema}.Sanitize()+`; `+q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	reopened := open(t, schema).Sessions()
	for uri, want := range map[string][]string{"file:///x": {"s1", "s2"}, "file:///s2": {"s2"}, "file:///gone": nil} {
		got, err := reopened.Subscribers(ctx, uri, "", 10)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Subscribers(%s) after the migration: %v, %v; want %v", uri, got, err, want)
		}
	}
}

// The expiry sweep finds idle sessions through the index of last use,
// even on a table autovacuum has not analyzed yet (a new deployment's):
// sweeps of a table of 20,000 live sessions and ten idle ones expire the
// idle ones, longest idle first, and read no table's worth of rows by
// sequential scan.
func TestExpirySweepReadsTheIndexWithoutStatistics(t *testing.T) {
	const live, idle = 20_000, 10
	ctx := context.Background()
	s := storeWithoutStatistics(t, "weft_sessions")
	pool := s.Pool()
	// Live sessions were last seen at 1,000,001 ns and after; idle ones at
	// 10 ns and before, the highest numbered the longest idle (stored
	// last, so that the table's own order is not the order wanted).
	if _, err := pool.Exec(ctx, `INSERT INTO weft_sessions (id, principal, version, level, subscriptions, created_ns, last_seen_ns, ended)
		SELECT 'live-' || g, 'p', '2025-11-25', 'info', '{}'::text[], 1, 1000000 + g, false FROM generate_series(1, $1::int) AS g
		UNION ALL
		SELECT 'idle-' || g, 'p', '2025-11-25', 'info', '{}'::text[], 1, $2::int + 1 - g, false FROM generate_series(1, $2::int) AS g`, live, idle); err != nil {
		t.Fatalf("filling the table with sessions: %v", err)
	}
	before := seqScanned(t, pool, "weft_sessions")
	var expired []string
	for range 6 { // past the 5 custom plans PostgreSQL makes before a generic one
		ids, err := s.Sessions().Expire(ctx, time.Unix(0, 1000), 2)
		if err != nil {
			t.Fatalf("Expire: %v", err)
		}
		slices.Sort(ids)
		expired = append(expired, ids...)
	}
	if first, want := expired[:min(2, len(expired))], []string{"idle-10", "idle-9"}; !slices.Equal(first, want) {
		t.Errorf("the first sweep expired %v; want the two longest idle, %v", first, want)
	}
	want := []string{"idle-1", "idle-10", "idle-2", "idle-3", "idle-4", "idle-5", "idle-6", "idle-7", "idle-8", "idle-9"}
	slices.Sort(expired)
	if !slices.Equal(expired, want) {
		t.Errorf("the sweeps expired %v; want the idle sessions alone, %v", expired, want)
	}
	if read := seqScanned(t, pool, "weft_sessions") - before; read >= live {
		t.Errorf("six sweeps read %d rows of weft_sessions in sequential scans (%d sessions in it): the sweep scans the table", read, live)
	}
}
