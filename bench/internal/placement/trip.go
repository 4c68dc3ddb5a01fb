package placement

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	goredis "github.com/redis/go-redis/v9"
)

// Trip is the floor under a durable task's life: one round trip to the
// store, made by the bare client library with no weft code around it.
// Each trip writes what a task's creation writes (a record of about 600
// bytes) and sends a message on a channel, as weft's writes do: for Redis
// one script (SET and PUBLISH), for PostgreSQL one statement (an upsert
// and pg_notify). A task's life one request at a time makes at least two
// writes (its creation, where the concurrency quota is enforced, and its
// outcome: docs/decisions.md, "One store write for a quick task: not
// built"), so it cannot cost less than the memory store's life and two
// trips.
type Trip struct {
	make  func(context.Context) error
	close func() error
}

// tripRecord is the record a trip writes.
var tripRecord = strings.Repeat("x", 600)

// OpenTrip connects the bare client library to the place's store, which
// must be Redis or PostgreSQL, and prepares the trip within the place.
func (p *Placement) OpenTrip(ctx context.Context) (*Trip, error) {
	switch p.Kind {
	case "redis":
		client, err := p.redisClient()
		if err != nil {
			return nil, err
		}
		write := goredis.NewScript(`redis.call('SET', KEYS[1], ARGV[1]) redis.call('PUBLISH', KEYS[2], ARGV[2]) return 1`)
		// Under the place's prefix, which Remove clears.
		prefix := "{" + p.Scope + "}:"
		keys := []string{prefix + "floor-task", prefix + "floor-signals"}
		return &Trip{
			make:  func(ctx context.Context) error { return write.Run(ctx, client, keys, tripRecord, "status task").Err() },
			close: client.Close,
		}, nil
	case "postgres":
		conn, err := p.postgresConn(ctx)
		if err != nil {
			return nil, err
		}
		// In the place's schema, which Remove drops.
		table := pgx.Identifier{p.Scope, "floor"}.Sanitize()
		for _, sql := range []string{
			`CREATE SCHEMA IF NOT EXISTS ` + pgx.Identifier{p.Scope}.Sanitize(),
			`CREATE TABLE IF NOT EXISTS ` + table + ` (id text PRIMARY KEY, record text NOT NULL)`,
		} {
			if _, err := conn.Exec(ctx, sql); err != nil {
				conn.Close(ctx)
				return nil, fmt.Errorf("prepare the PostgreSQL round trip: %w", err)
			}
		}
		upsert := `WITH w AS (INSERT INTO ` + table + ` (id, record) VALUES ($1, $2)
			ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record RETURNING 1)
			SELECT pg_notify($3, 'status task') FROM w`
		channel := p.Scope + "_floor"
		return &Trip{
			make: func(ctx context.Context) error {
				_, err := conn.Exec(ctx, upsert, "task", tripRecord, channel)
				return err
			},
			close: func() error { return conn.Close(context.Background()) },
		}, nil
	}
	return nil, fmt.Errorf("no round trip to measure on the %s store: it runs inside the server", p.Kind)
}

// Make makes one round trip.
func (t *Trip) Make(ctx context.Context) error { return t.make(ctx) }

// Close closes the trip's connection.
func (t *Trip) Close() error { return t.close() }

// TripCost is what a run of trips cost this process.
type TripCost struct {
	// Trips is how many trips were measured.
	Trips int
	// CPUPerTrip is this process's user and system time over the measured
	// trips, divided by Trips.
	CPUPerTrip time.Duration
}

// Measure makes trips one after the other: for warmup (at least a few,
// which load scripts and plans), unmeasured, then for window, measured by
// this process's CPU time. Nothing else may run in the process meanwhile.
func (t *Trip) Measure(ctx context.Context, warmup, window time.Duration) (TripCost, error) {
	for start, n := time.Now(), 0; n < 10 || time.Since(start) < warmup; n++ {
		if err := t.Make(ctx); err != nil {
			return TripCost{}, err
		}
	}
	before, err := ProcessCPU()
	if err != nil {
		return TripCost{}, err
	}
	var n int
	for start := time.Now(); n == 0 || time.Since(start) < window; n++ {
		if err := t.Make(ctx); err != nil {
			return TripCost{}, err
		}
	}
	after, err := ProcessCPU()
	if err != nil {
		return TripCost{}, err
	}
	return TripCost{Trips: n, CPUPerTrip: (after - before) / time.Duration(n)}, nil
}

// ProcessCPU is the user and system time this process has used.
func ProcessCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("read this process's CPU time: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
