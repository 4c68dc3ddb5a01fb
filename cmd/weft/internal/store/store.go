// Package store opens the task store a weft command runs its tasks on, from
// the --store flag: memory, an SQLite file, Redis or PostgreSQL.
package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/taskstore/postgres"
	redisstore "github.com/weftmcp/weft/taskstore/redis"
	"github.com/weftmcp/weft/taskstore/sqlite"
)

// Usage describes the --store flag's values, for help texts; DefaultUsage
// says what the default is.
const Usage = `where tasks are kept: "memory" (lost on exit), "sqlite:PATH" (a file; durable), "redis://HOST:PORT/DB" or "postgres://USER@HOST:PORT/DB" (shared by many instances)`

// ErrBadSpec is wrapped by the error of Open for a --store value that names
// no store: a mistake on the command line.
var ErrBadSpec = errors.New("not a task store")

// Store is an opened task store and the bus that goes with it.
type Store struct {
	Store tasks.Store
	Bus   tasks.Bus
	// Description says where the tasks are kept, for messages.
	Description string
	closers     []func() error
}

// Close releases the store and its bus.
func (s *Store) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	return errors.Join(errs...)
}

// Open opens the store that spec names: "memory", "sqlite:PATH",
// "redis://…" (or "rediss://…"), "postgres://…" (or "postgresql://…"), or
// "" for the SQLite file DefaultPath(endpoint) (see EndpointFile).
func Open(ctx context.Context, spec, endpoint string) (*Store, error) {
	switch {
	case spec == "memory":
		return &Store{Store: tasks.NewMemoryStore(), Bus: tasks.NewMemoryBus(), Description: "memory (tasks end with the process)"}, nil
	case spec == "":
		path, err := DefaultPath(endpoint)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("creating the folder for the default task store: %w; give --store sqlite:PATH or --store memory instead", err)
		}
		return openSQLite(ctx, path)
	case strings.HasPrefix(spec, "sqlite:"):
		path := strings.TrimPrefix(spec, "sqlite:")
		if path == "" {
			return nil, fmt.Errorf("--store %q names no file (%w); write sqlite:PATH, for example sqlite:./tasks.db", spec, ErrBadSpec)
		}
		return openSQLite(ctx, path)
	case strings.HasPrefix(spec, "postgres://"), strings.HasPrefix(spec, "postgresql://"):
		return openPostgres(ctx, spec)
	case strings.HasPrefix(spec, "redis://"), strings.HasPrefix(spec, "rediss://"):
		return openRedis(ctx, spec)
	}
	return nil, fmt.Errorf("--store %q is %w; use memory, sqlite:PATH, redis://HOST:PORT/DB or postgres://USER@HOST:PORT/DB", spec, ErrBadSpec)
}

func openSQLite(ctx context.Context, path string) (*Store, error) {
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("opening the task store %s: %w", path, err)
	}
	bus, err := sqlite.OpenBus(ctx, path)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("opening the task store's signal bus on %s: %w", path, err)
	}
	return &Store{Store: st, Bus: bus, Description: "sqlite:" + path, closers: []func() error{st.Close, bus.Close}}, nil
}

func openRedis(ctx context.Context, url string) (*Store, error) {
	opts, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("--store %q is %w (%v); write redis://HOST:PORT/DB", url, ErrBadSpec, err)
	}
	client := goredis.NewClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("reaching the Redis at %s: %w; check that it runs, or use --store sqlite:PATH", opts.Addr, err)
	}
	st, err := redisstore.New(client)
	if err != nil {
		client.Close()
		return nil, err
	}
	bus, err := redisstore.NewBus(ctx, client)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("subscribing to task signals on the Redis at %s: %w", opts.Addr, err)
	}
	return &Store{Store: st, Bus: bus, Description: "redis " + opts.Addr + " db " + fmt.Sprint(opts.DB), closers: []func() error{client.Close, bus.Close}}, nil
}

func openPostgres(ctx context.Context, spec string) (*Store, error) {
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("--store is %w (%v); write postgres://USER@HOST:PORT/DB", ErrBadSpec, err)
	}
	where := u.Redacted()
	st, err := postgres.Open(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("opening the task store at %s: %w", where, err)
	}
	bus, err := postgres.OpenBus(ctx, spec, nil)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("listening for task signals at %s: %w", where, err)
	}
	return &Store{Store: st, Bus: bus, Description: where, closers: []func() error{bus.Close, st.Close}}, nil
}
