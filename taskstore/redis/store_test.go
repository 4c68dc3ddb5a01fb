package redis_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/redis"
)

// newStore returns a Store with its own client on the prefix.
func newStore(t testing.TB, prefix string, opts ...redis.Option) *redis.Store {
	t.Helper()
	return newStoreOn(t, newClient(t), prefix, opts...)
}

// newStoreOn returns a Store on the client and prefix.
func newStoreOn(t testing.TB, c goredis.UniversalClient, prefix string, opts ...redis.Option) *redis.Store {
	t.Helper()
	s, err := redis.New(c, append([]redis.Option{redis.WithPrefix(prefix)}, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func TestStoreContract(t *testing.T) {
	needRedis(t)
	storetest.TestStore(t, func(t *testing.T) tasks.Store { return newStore(t, newPrefix(t)) })
}

// Two Stores with their own connections on one prefix stand for two instances.
func TestStorePairContract(t *testing.T) {
	needRedis(t)
	storetest.TestStorePair(t, func(t *testing.T) (tasks.Store, tasks.Store) {
		prefix := newPrefix(t)
		return newStore(t, prefix), newStore(t, prefix)
	})
}

func TestRecordsAreReadableHashesKeptByteForByte(t *testing.T) {
	ctx := context.Background()
	prefix := newPrefix(t)
	s := newStore(t, prefix)
	rec := &tasks.Record{ID: "t1", Principal: "alice", Method: "tools/call", Name: "echo",
		Params: json.RawMessage("{ \"name\" : \"echo\" }"), Status: tasks.StatusWorking,
		CreatedAt: time.Date(2026, 11, 22, 9, 0, 0, 123456789, time.UTC)}
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	h, err := newClient(t).HGetAll(ctx, "{"+prefix+"}:task:t1").Result()
	if err != nil {
		t.Fatalf("HGETALL: %v", err)
	}
	if h["params"] != "{ \"name\" : \"echo\" }" || h["status"] != "working" || h["principal"] != "alice" ||
		h["created_at"] != "2026-11-22T09:00:00.123456789Z" || h["v"] != "1" {
		t.Fatalf("the task's hash is %v", h)
	}
	got, err := s.Get(ctx, "t1")
	if err != nil || string(got.Params) != string(rec.Params) || !got.CreatedAt.Equal(rec.CreatedAt) {
		t.Fatalf("Get: %+v, %v", got, err)
	}
}

func TestKeyTTLIsTheBackstopForExpiry(t *testing.T) {
	ctx := context.Background()
	prefix := newPrefix(t)
	const grace = 300 * time.Millisecond
	s := newStore(t, prefix, redis.WithExpiryGrace(grace))
	c := newClient(t)
	key := func(id string) string { return "{" + prefix + "}:task:" + id }

	now := time.Now()
	forever := &tasks.Record{ID: "forever", Principal: "alice", Status: tasks.StatusWorking}
	expiring := &tasks.Record{ID: "expiring", Principal: "alice", Status: tasks.StatusWorking,
		ExpiresAt: now.Add(-time.Minute), Owner: "gone", LeaseExpiresAt: now.Add(-time.Minute)}
	for _, rec := range []*tasks.Record{forever, expiring} {
		if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
			t.Fatalf("Create(%s): %v", rec.ID, err)
		}
	}
	if ttl := c.PTTL(ctx, key("forever")).Val(); ttl != -1 {
		t.Fatalf("a task without expiry has TTL %v, want none", ttl)
	}
	if ttl := c.PTTL(ctx, key("expiring")).Val(); ttl <= 0 || ttl > grace {
		t.Fatalf("an expired task's key has TTL %v, want the grace of at most %v", ttl, grace)
	}
	quota := tasks.Quota{PerPrincipal: 2}
	if err := s.Create(ctx, &tasks.Record{ID: "third", Principal: "alice", Status: tasks.StatusWorking}, quota); !errors.Is(err, tasks.ErrLimit) {
		t.Fatalf("Create over the quota: got %v, want ErrLimit", err)
	}

	// Nobody sweeps; Redis deletes the key once the grace is over.
	deadline := time.Now().Add(10 * time.Second)
	for c.Exists(ctx, key("expiring")).Val() == 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the key of an expired task outlived its TTL")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := s.Get(ctx, "expiring"); !errors.Is(err, tasks.ErrNotFound) {
		t.Fatalf("Get after the key expired: got %v, want ErrNotFound", err)
	}
	// Its quota slot is free again, and the listings forget it.
	if err := s.Create(ctx, &tasks.Record{ID: "third", Principal: "alice", Status: tasks.StatusWorking}, quota); err != nil {
		t.Fatalf("Create after the expired task's key went: %v", err)
	}
	if ids, err := s.LeaseExpired(ctx, time.Now(), 10); err != nil || len(ids) != 0 {
		t.Fatalf("LeaseExpired: %v, %v; want nothing", ids, err)
	}
	if ids, err := s.Expired(ctx, time.Now(), 10); err != nil || len(ids) != 0 {
		t.Fatalf("Expired: %v, %v; want nothing", ids, err)
	}
	recs, _, err := s.List(ctx, "alice", "", 10)
	if err != nil || len(recs) != 2 {
		t.Fatalf("List: %d records, %v; want forever and third", len(recs), err)
	}
	for _, set := range []string{"expiry", "lease", "active", "active:alice", "list:alice"} {
		if n, _ := c.ZScore(ctx, "{"+prefix+"}:"+set, "expiring").Result(); n != 0 {
			t.Fatalf("the %s set still holds the expired task", set)
		}
	}
	if n := c.ZCard(ctx, "{"+prefix+"}:expiry").Val(); n != 0 {
		t.Fatalf("the expiry set still holds %d members", n)
	}
}

func TestNewRejectsBadSettings(t *testing.T) {
	if _, err := redis.New(nil); err == nil {
		t.Errorf("New(nil) succeeded")
	}
	c := newClient(t)
	for _, opt := range []redis.Option{redis.WithPrefix(""), redis.WithPrefix("a{b}"), redis.WithExpiryGrace(0)} {
		if _, err := redis.New(c, opt); err == nil {
			t.Errorf("New with a bad option succeeded")
		}
	}
}

func TestDeadlinesAreExactBelowAMillisecond(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, newPrefix(t))
	at := time.Date(2026, 11, 22, 9, 0, 0, 500_600, time.UTC) // 0.5006 ms past the second
	rec := &tasks.Record{ID: "t", Principal: "alice", Status: tasks.StatusWorking, ExpiresAt: at, Owner: "a", LeaseExpiresAt: at}
	if err := s.Create(ctx, rec, tasks.Quota{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	for _, c := range []struct {
		now  time.Time
		want int
	}{{at.Add(-time.Nanosecond), 0}, {at, 1}, {at.Add(time.Nanosecond), 1}} {
		expired, err := s.Expired(ctx, c.now, 10)
		if err != nil || len(expired) != c.want {
			t.Errorf("Expired at %v: %v, %v; want %d", c.now.Sub(at), expired, err, c.want)
		}
		lapsed, err := s.LeaseExpired(ctx, c.now, 10)
		if err != nil || len(lapsed) != c.want {
			t.Errorf("LeaseExpired at %v: %v, %v; want %d", c.now.Sub(at), lapsed, err, c.want)
		}
	}
}
