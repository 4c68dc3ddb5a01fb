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
