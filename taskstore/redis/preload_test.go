package redis_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/internal/testport"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/redis"
)

// privateRedis starts a redis-server of the test's own, which has run no
// script yet (SCRIPT FLUSH on the shared Redis would affect every other
// user of it), and ends it when the test ends.
func privateRedis(t *testing.T) *goredis.Options {
	t.Helper()
	server, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the test needs redis-server installed: %v", err)
		}
		t.Skipf("skipping: redis-server is not installed: %v", err)
	}
	opts, stop, err := startRedis(server)
	t.Cleanup(stop)
	if err != nil {
		t.Fatalf("starting a private redis-server: %v", err)
	}
	return opts
}

// New loads every script in one round trip, so that on a Redis that has
// never seen them the first use of each costs one round trip, not an
// EVALSHA answered NOSCRIPT and an EVAL.
func TestNewLoadsEveryScriptInOneRoundTrip(t *testing.T) {
	opts := privateRedis(t)
	ctx := context.Background()
	plain := goredis.NewClient(opts)
	t.Cleanup(func() { plain.Close() })
	trips := &roundTripCounter{}
	counted := goredis.NewClient(opts)
	t.Cleanup(func() { counted.Close() })
	counted.AddHook(trips)
	if err := counted.Ping(ctx).Err(); err != nil { // the connection's handshake is not New's
		t.Fatalf("PING: %v", err)
	}
	handshake := trips.count()

	s, err := redis.New(counted, redis.WithPrefix("preload"))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if n := trips.count() - handshake; n != 1 {
		t.Errorf("New made %d round trips, want 1 (SCRIPT LOAD of every script, pipelined)", n)
	}
	hashes := redis.PreloadedHashes()
	loaded, err := plain.ScriptExists(ctx, hashes...).Result()
	if err != nil {
		t.Fatalf("SCRIPT EXISTS: %v", err)
	}
	for i, ok := range loaded {
		if !ok {
			t.Errorf("script %s is not loaded after New", hashes[i])
		}
	}

	cost := func(what string, op func() error) {
		t.Helper()
		before := trips.count()
		if err := op(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n := trips.count() - before; n != 1 {
			t.Errorf("the first %s took %d round trips, want 1", what, n)
		}
	}
	cost("Create", func() error {
		return s.Create(ctx, &tasks.Record{ID: "t1", Principal: "alice", Method: "tools/call", Name: "echo",
			Status: tasks.StatusWorking, CreatedAt: time.Now()}, tasks.Quota{})
	})
	cost("Delete", func() error { return s.Delete(ctx, "t1") })
	cost("session Touch", func() error {
		if _, err := s.Sessions().Touch(ctx, "s1", time.Now(), time.Minute); !errors.Is(err, sessions.ErrNotFound) && err != nil {
			return err
		}
		return nil
	})
}

// A Redis New cannot reach gets no scripts loaded: New says so in the log
// and returns the Store all the same, whose scripts load on first use.
func TestNewWithoutRedisLogsThatItLoadedNoScripts(t *testing.T) {
	port, err := testport.Free() // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + port
	c := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	var log bytes.Buffer
	if _, err := redis.New(c, redis.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))); err != nil {
		t.Fatalf("New: %v", err)
	}
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "could not load the task store's scripts") {
		t.Errorf("New logged %q, want a warning that it could not load the scripts", log.String())
	}
}
