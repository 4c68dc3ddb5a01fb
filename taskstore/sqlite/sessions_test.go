package sqlite_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/sessions/sessiontest"
)

func TestSessionStoreContract(t *testing.T) {
	sessiontest.TestStore(t, func(t *testing.T) sessions.Store { return open(t, dbPath(t)).Sessions() })
}

// Two Stores on one file stand for two processes sharing its sessions.
func TestSessionStorePairContract(t *testing.T) {
	sessiontest.TestStorePair(t, func(t *testing.T) (sessions.Store, sessions.Store) {
		path := dbPath(t)
		return open(t, path).Sessions(), open(t, path).Sessions()
	})
}

func TestSessionsSurviveARestart(t *testing.T) {
	ctx := context.Background()
	path := dbPath(t)
	s := open(t, path)
	at := time.Date(2026, 11, 22, 9, 30, 0, 123456789, time.UTC)
	rec := &sessions.Record{ID: "s1", Principal: "alice", Version: "2025-06-18", Level: "debug",
		Subscriptions: []string{"file:///x"}, CreatedAt: at, LastSeen: at}
	if err := s.Sessions().Create(ctx, rec); err != nil {
		t.Fatalf("Create: %v", err)
	}
	key, err := s.Sessions().StateKey(ctx)
	if err != nil {
		t.Fatalf("StateKey: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	reopened := open(t, path).Sessions()
	got, err := reopened.Get(ctx, "s1")
	if err != nil || got.Version != rec.Version || got.Level != "debug" || !got.LastSeen.Equal(at) || len(got.Subscriptions) != 1 {
		t.Fatalf("after reopening: %+v, %v", got, err)
	}
	if again, err := reopened.StateKey(ctx); err != nil || string(again) != string(key) {
		t.Fatalf("the state key changed across a restart (%v)", err)
	}
}

func TestMessageLogContract(t *testing.T) {
	sessiontest.TestMessageLog(t, func(t *testing.T) sessions.MessageLog { return open(t, dbPath(t)).Messages() })
}

// Two Stores on one file stand for two processes routing messages.
func TestMessageLogPairContract(t *testing.T) {
	sessiontest.TestMessageLogPair(t, func(t *testing.T) (sessions.MessageLog, sessions.MessageLog) {
		path := dbPath(t)
		return open(t, path).Messages(), open(t, path).Messages()
	})
}

// A file whose sessions were stored before the index by URI existed gets
// their subscriptions indexed when it is opened, ended sessions' aside.
func TestMigrationIndexesTheSubscriptionsOfStoredSessions(t *testing.T) {
	ctx := context.Background()
	path := dbPath(t)
	s := open(t, path).Sessions()
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	for _, id := range []string{"s1", "s2", "gone"} {
		rec := &sessions.Record{ID: id, Subscriptions: []string{"file:///x", "file:///" + id}, CreatedAt: at, LastSeen: at}
		if err := s.Create(ctx, rec); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	if err := s.End(ctx, "gone", ""); err != nil {
		t.Fatalf("End: %v", err)
	}
	// Back to the schema of version 3, as an older weft left it.
	db := rawDB(t, path)
	for _, q := range []string{`DROP TABLE weft_session_subscribers`, `UPDATE weft_schema SET version = 3`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	reopened := open(t, path).Sessions()
	for uri, want := range map[string][]string{"file:///x": {"s1", "s2"}, "file:///s2": {"s2"}, "file:///gone": nil} {
		got, err := reopened.Subscribers(ctx, uri, "", 10)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("Subscribers(%s) after the migration: %v, %v; want %v", uri, got, err, want)
		}
	}
}
