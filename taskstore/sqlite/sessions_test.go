package sqlite_test

import (
	"context"
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
