// Package stores opens the task store a benchmark server runs its tasks on,
// from the flags the harness gives it (see package placement): the memory
// store, an SQLite file, or a Redis or PostgreSQL on this machine, each
// confined to a scope of its own.
package stores

import (
	"context"
	"errors"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/postgres"
	redisstore "github.com/weftmcp/weft/taskstore/redis"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// Opened is a task store, its bus and the legacy session store beside it.
type Opened struct {
	Store tasks.Store
	Bus   tasks.Bus
	// Sessions keeps legacy HTTP sessions in the same store; nil for the
	// memory store, whose sessions stay in the handler's memory.
	Sessions sessions.Store
	trips    *roundTrips // nil for a store whose round trips are not counted
	closers  []func() error
}

// RoundTrips returns how many round trips the server has made to its store
// so far, all and those of them made in the background (outside any HTTP
// request: see roundTrips), and whether they are counted: they are for
// Redis (every command, pipeline and transaction of the store and the bus;
// the bus's subscription stream is not a round trip).
func (o *Opened) RoundTrips() (all, background int64, ok bool) {
	if o.trips == nil {
		return 0, 0, false
	}
	// Background first: a round trip counted between the two loads then
	// shows in all, never in background alone.
	background = o.trips.background.Load()
	return o.trips.n.Load(), background, true
}

// Close releases the store, its bus and their connections.
func (o *Opened) Close() error {
	var errs []error
	for i := len(o.closers) - 1; i >= 0; i-- {
		errs = append(errs, o.closers[i]())
	}
	return errors.Join(errs...)
}

// Open opens the store of kind: at is the SQLite file, the Redis URL or the
// PostgreSQL connection string (unused for memory), and scope the Redis key
// prefix or the PostgreSQL schema (unused otherwise). Every setting not
// named is the driver's default, as the weft CLI opens them: SQLite syncs
// every commit (SyncFull).
func Open(ctx context.Context, kind, at, scope string) (*Opened, error) {
	switch kind {
	case "memory":
		return &Opened{Store: tasks.NewMemoryStore(), Bus: tasks.NewMemoryBus()}, nil
	case "sqlite":
		st, err := sqlite.Open(ctx, at)
		if err != nil {
			return nil, fmt.Errorf("open the SQLite store %s: %w", at, err)
		}
		o := &Opened{Store: st, Sessions: st.Sessions(), closers: []func() error{st.Close}}
		bus, err := sqlite.OpenBus(ctx, at)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("open the SQLite bus %s: %w", at, err), o.Close())
		}
		o.Bus, o.closers = bus, append(o.closers, bus.Close)
		return o, nil
	case "redis":
		opts, err := goredis.ParseURL(at)
		if err != nil {
			return nil, fmt.Errorf("-store-at %q is not a Redis URL: %w", at, err)
		}
		client := goredis.NewClient(opts)
		o := &Opened{trips: &roundTrips{}, closers: []func() error{client.Close}}
		client.AddHook(o.trips)
		st, err := redisstore.New(client, redisstore.WithPrefix(scope))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("open the Redis store at %s: %w", opts.Addr, err), o.Close())
		}
		o.Store, o.Sessions = st, st.Sessions()
		bus, err := redisstore.NewBus(ctx, client, redisstore.WithPrefix(scope))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("open the Redis bus at %s: %w", opts.Addr, err), o.Close())
		}
		o.Bus, o.closers = bus, append(o.closers, bus.Close)
		return o, nil
	case "postgres":
		st, err := postgres.Open(ctx, at, postgres.WithSchema(scope))
		if err != nil {
			return nil, fmt.Errorf("open the PostgreSQL store (schema %s): %w", scope, err)
		}
		o := &Opened{Store: st, Sessions: st.Sessions(), closers: []func() error{st.Close}}
		bus, err := postgres.OpenBus(ctx, at, nil, postgres.WithSchema(scope))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("open the PostgreSQL bus (schema %s): %w", scope, err), o.Close())
		}
		o.Bus, o.closers = bus, append(o.closers, bus.Close)
		return o, nil
	}
	return nil, fmt.Errorf("-store %q is not one of memory, sqlite, redis, postgres", kind)
}
