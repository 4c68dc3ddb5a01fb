package redis_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/weftmcp/weft/sessions"
)

// An Append whose script ran but whose reply was lost stores the message
// once and reports its number. The retried script would store it again,
// and the client would get the message twice under two event IDs.
func TestAnAppendWhoseReplyIsLostStoresTheMessageOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, d := newReplyDroppingStore(t)
	log := s.Messages()

	session := rand.Text()
	d.arm()
	n, err := log.Append(ctx, session, sessions.ToClient, []byte(`{"n":1}`))
	d.mustHaveDropped(t)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	msgs, err := log.Read(ctx, session, sessions.ToClient, 0)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if n != 1 || len(msgs) != 1 {
		t.Fatalf("Append returned %d and the box holds %d messages, want message 1 alone", n, len(msgs))
	}
	if n, err := log.Append(ctx, session, sessions.ToClient, []byte(`{"n":1}`)); err != nil || n != 2 {
		t.Fatalf("the next Append of the same data = %d, %v; want 2", n, err)
	}
}

// A message appended to a session the store no longer holds (it ended, or
// expired while the message was on its way) is kept for a bounded time:
// nothing else would ever delete it. A live session's box is kept for the
// session's life, so its numbers never start again under a reader.
func TestAMessageForAGoneSessionIsKeptForABoundedTime(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	prefix := newPrefix(t)
	s := newStore(t, prefix)
	ss, log := s.Sessions(), s.Messages()
	c := newClient(t)
	boxKeys := func(id string) []string {
		k := "{" + prefix + "}:session:" + id + ":box0"
		return []string{k, k + ":last"}
	}

	live, ended := newSessionRecord(time.Now()), newSessionRecord(time.Now())
	for _, rec := range []*sessions.Record{live, ended} {
		if err := ss.Create(ctx, rec); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	if err := ss.End(ctx, ended.ID, ended.Principal); err != nil {
		t.Fatalf("End: %v", err)
	}
	expired := rand.Text() // its record is gone
	for _, id := range []string{live.ID, ended.ID, expired} {
		if _, err := log.Append(ctx, id, sessions.ToClient, []byte(`{}`)); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	for _, id := range []string{ended.ID, expired} {
		for _, k := range boxKeys(id) {
			if ttl, err := c.PTTL(ctx, k).Result(); err != nil || ttl <= 0 {
				t.Errorf("%s of a session the store does not hold live has the TTL %v (%v); want one", k, ttl, err)
			}
		}
	}
	for _, k := range boxKeys(live.ID) {
		if ttl, err := c.PTTL(ctx, k).Result(); err != nil || ttl != -1 {
			t.Errorf("%s of a live session has the TTL %v (%v); want none", k, ttl, err)
		}
	}
}
