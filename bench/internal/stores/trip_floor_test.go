package stores_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/bench/internal/placement"
)

// BenchmarkStoreRoundTrip is the floor under a durable task's life: the
// CPU this process spends on one round trip to the store, one at a time,
// made by the bare client library with no weft code around it. Each trip
// writes what a task's creation writes (a record of about 600 bytes) and
// sends a message on a channel, as weft's do: for Redis one script (SET and
// PUBLISH), for PostgreSQL one statement (an upsert and pg_notify). A task
// life at 1 in flight makes two such trips (the creation and the outcome),
// so it cannot cost less than the memory store's life and two of these.
// cpu-µs/op is user and system time of the whole process over the loop.
//
//	go test ./internal/stores -run '^$' -bench StoreRoundTrip -count 3
func BenchmarkStoreRoundTrip(b *testing.B) {
	record := strings.Repeat("x", 600)
	b.Run("redis", func(b *testing.B) {
		p := place(b, "redis")
		opts, err := goredis.ParseURL(p.At)
		if err != nil {
			b.Fatal(err)
		}
		client := goredis.NewClient(opts)
		defer client.Close()
		write := goredis.NewScript(`redis.call('SET', KEYS[1], ARGV[1]) redis.call('PUBLISH', KEYS[2], ARGV[2]) return 1`)
		// Under the place's prefix, which Remove clears.
		prefix := "{" + p.Scope + "}:"
		keys := []string{prefix + "task", prefix + "signals"}
		trip := func(ctx context.Context) error { return write.Run(ctx, client, keys, record, "status task").Err() }
		measureTrips(b, trip)
	})
	b.Run("postgres", func(b *testing.B) {
		p := place(b, "postgres")
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, p.At)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		table := pgx.Identifier{p.Scope, "floor"}.Sanitize()
		for _, sql := range []string{
			`CREATE SCHEMA ` + pgx.Identifier{p.Scope}.Sanitize(),
			`CREATE TABLE ` + table + ` (id text PRIMARY KEY, record text NOT NULL)`,
		} {
			if _, err := conn.Exec(ctx, sql); err != nil {
				b.Fatal(err)
			}
		}
		upsert := `WITH w AS (INSERT INTO ` + table + ` (id, record) VALUES ($1, $2)
			ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record RETURNING 1)
			SELECT pg_notify($3, 'status task') FROM w`
		channel := p.Scope + "_signals"
		trip := func(ctx context.Context) error { _, err := conn.Exec(ctx, upsert, "task", record, channel); return err }
		measureTrips(b, trip)
	})
}

// place makes a place in the store for a benchmark, failing in CI when
// the service is missing and skipping elsewhere.
func place(b *testing.B, kind string) *placement.Placement {
	b.Helper()
	p, err := placement.New(b.Context(), kind, "")
	if err != nil {
		if os.Getenv("CI") == "true" {
			b.Fatal(err)
		}
		b.Skip(err)
	}
	b.Cleanup(func() { p.Remove(context.Background()) })
	return p
}

// measureTrips makes b.N trips one after the other (after a few unmeasured,
// which load scripts and plans) and reports the process's CPU time per trip.
func measureTrips(b *testing.B, trip func(context.Context) error) {
	ctx := context.Background()
	for range 10 {
		if err := trip(ctx); err != nil {
			b.Fatal(err)
		}
	}
	before := processCPU(b)
	for b.Loop() {
		if err := trip(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU(b)-before)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
}

// processCPU is the user and system time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
