package redis_test

import (
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/sessions/sessiontest"
	"github.com/weftmcp/weft/taskstore/redis"
)

func TestSessionStoreContract(t *testing.T) {
	needRedis(t)
	sessiontest.TestStore(t, func(t *testing.T) sessions.Store { return newStore(t, newPrefix(t)).Sessions() })
}

// Two Stores with their own connections on one prefix stand for two instances.
func TestSessionStorePairContract(t *testing.T) {
	needRedis(t)
	sessiontest.TestStorePair(t, func(t *testing.T) (sessions.Store, sessions.Store) {
		prefix := newPrefix(t)
		return newStore(t, prefix).Sessions(), newStore(t, prefix).Sessions()
	})
}

func TestMessageLogContract(t *testing.T) {
	needRedis(t)
	sessiontest.TestMessageLog(t, func(t *testing.T) sessions.MessageLog { return newStore(t, newPrefix(t)).Messages() })
}

// Two Stores with their own connections on one prefix stand for two instances.
func TestMessageLogPairContract(t *testing.T) {
	needRedis(t)
	sessiontest.TestMessageLogPair(t, func(t *testing.T) (sessions.MessageLog, sessions.MessageLog) {
		prefix := newPrefix(t)
		return newStore(t, prefix).Messages(), newStore(t, prefix).Messages()
	})
}

// storedSession stores a live session on a store of its own whose replies
// d can drop.
func storedSession(t *testing.T) (context.Context, *redis.SessionStore, *sessions.Record, *replyDropper) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	s, d := newReplyDroppingStore(t)
	ss := s.Sessions()
	rec := newSessionRecord(time.Now())
	if err := ss.Create(ctx, rec); err != nil {
		t.Fatalf("Create: %v", err)
	}
	return ctx, ss, rec, d
}

// newSessionRecord returns a live session of alice last seen at seen.
func newSessionRecord(seen time.Time) *sessions.Record {
	return &sessions.Record{ID: rand.Text(), Principal: "alice", Version: "2025-11-25", Level: "info",
		Subscriptions: []string{"file:///a"}, CreatedAt: seen, LastSeen: seen}
}

// A session Create whose script ran but whose reply was lost reports the
// session created. The retried script finds the session; reported as
// ErrExists, the initialize that made it would fail while the session
// stayed stored.
func TestASessionCreateWhoseReplyIsLostReportsTheSessionCreated(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, d := newReplyDroppingStore(t)
	ss := s.Sessions()

	rec := newSessionRecord(time.Now())
	d.arm()
	err := ss.Create(ctx, rec)
	d.mustHaveDropped(t)
	if _, gerr := ss.Get(ctx, rec.ID); gerr != nil {
		t.Fatalf("Get after Create: %v", gerr)
	}
	if err != nil {
		t.Fatalf("Create returned %v, yet it stored the session", err)
	}
	if err := ss.Create(ctx, rec); !errors.Is(err, sessions.ErrExists) {
		t.Fatalf("a second Create of the session returned %v, want ErrExists", err)
	}
}

// A session End whose script ran but whose reply was lost reports the
// session ended. The retried script finds it ended; reported as
// ErrNotFound, the client's DELETE would get 404 for the session it ended.
func TestASessionEndWhoseReplyIsLostReportsTheSessionEnded(t *testing.T) {
	ctx, ss, rec, d := storedSession(t)
	d.arm()
	err := ss.End(ctx, rec.ID, rec.Principal)
	d.mustHaveDropped(t)
	if got, gerr := ss.Get(ctx, rec.ID); gerr != nil || !got.Ended {
		t.Fatalf("Get after End = %+v, %v; want the session ended", got, gerr)
	}
	if err != nil {
		t.Fatalf("End returned %v, yet it ended the session", err)
	}
	if err := ss.End(ctx, rec.ID, rec.Principal); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("a second End of the session returned %v, want ErrNotFound", err)
	}
}

// An Expire whose script ran but whose reply was lost reports the sessions
// it deleted. The retried script finds them gone and returns none, so no
// instance would end its copies or forget their messages.
func TestAnExpireWhoseReplyIsLostReportsTheSessionsItDeleted(t *testing.T) {
	ctx, ss, rec, d := storedSession(t)
	d.arm()
	ids, err := ss.Expire(ctx, rec.LastSeen.Add(time.Second), 10)
	d.mustHaveDropped(t)
	if err != nil {
		t.Fatalf("Expire: %v", err)
	}
	if _, gerr := ss.Get(ctx, rec.ID); !errors.Is(gerr, sessions.ErrNotFound) {
		t.Fatalf("Get after Expire: %v, want ErrNotFound", gerr)
	}
	if !slices.Equal(ids, []string{rec.ID}) {
		t.Fatalf("Expire reported %v, yet it deleted %s", ids, rec.ID)
	}
}

// Expire deletes a session's messages and reader with the session: an
// instance that dies between the Expire and its MessageLog.Delete leaves
// nothing behind.
func TestAnExpiredSessionTakesItsMessagesWithIt(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := newStore(t, newPrefix(t))
	ss, log := s.Sessions(), s.Messages()

	rec := newSessionRecord(time.Now())
	if err := ss.Create(ctx, rec); err != nil {
		t.Fatalf("Create: %v", err)
	}
	for _, box := range []sessions.Box{sessions.ToClient, sessions.ToServer} {
		if _, err := log.Append(ctx, rec.ID, box, []byte(`{}`)); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	if err := log.SetReader(ctx, rec.ID, "i1", rec.LastSeen.Add(time.Hour)); err != nil {
		t.Fatalf("SetReader: %v", err)
	}
	if ids, err := ss.Expire(ctx, rec.LastSeen.Add(time.Second), 10); err != nil || len(ids) != 1 {
		t.Fatalf("Expire = %v, %v; want the session", ids, err)
	}
	for _, box := range []sessions.Box{sessions.ToClient, sessions.ToServer} {
		if last, err := log.Last(ctx, rec.ID, box); err != nil || last != 0 {
			t.Errorf("Last of box %d of the expired session = %d, %v; want 0", box, last, err)
		}
	}
	if ok, err := log.HasReader(ctx, rec.ID, rec.LastSeen); err != nil || ok {
		t.Errorf("HasReader of the expired session = %v, %v; want false", ok, err)
	}
}
