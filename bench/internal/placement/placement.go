// Package placement gives each benchmark row that runs on a task store a
// place of its own in it, isolated as the store's own tests isolate
// themselves, and takes it away afterwards: a fresh SQLite file in a
// temporary folder, a random key prefix in the test Redis, a fresh schema
// in the test PostgreSQL. It also reads the CPU time of the Redis and
// PostgreSQL servers, so a row can report the store's own cost.
package placement

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	goredis "github.com/redis/go-redis/v9"
)

// The services the stores' tests use, unless the same environment
// variables name others.
const (
	redisEnv        = "WEFT_TEST_REDIS"
	defaultRedis    = "redis://127.0.0.1:6379/15"
	postgresEnv     = "WEFT_POSTGRES_URL"
	defaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
)

// Kinds names the stores, in report order.
func Kinds() []string { return []string{"memory", "sqlite", "redis", "postgres"} }

// Placement is one row's place in a store.
type Placement struct {
	// Kind is the store: memory, sqlite, redis or postgres.
	Kind string
	// At is the SQLite file, the Redis URL or the PostgreSQL connection
	// string; empty for memory.
	At string
	// Scope is the Redis key prefix or the PostgreSQL schema; empty otherwise.
	Scope string
	dir   string // the SQLite file's temporary folder
}

// New makes a place in the store of kind, checking that its service
// answers. An SQLite file goes in a new folder under sqliteDir (made if
// need be; "" is the system's temporary folder, which may be a tmpfs,
// where a sync costs nothing: give a folder on the disk being measured).
func New(ctx context.Context, kind, sqliteDir string) (*Placement, error) {
	suffix := strings.ToLower(rand.Text()[:12])
	switch kind {
	case "memory":
		return &Placement{Kind: kind}, nil
	case "sqlite":
		if sqliteDir != "" {
			if err := os.MkdirAll(sqliteDir, 0o755); err != nil {
				return nil, fmt.Errorf("make the folder for SQLite stores: %w", err)
			}
		}
		dir, err := os.MkdirTemp(sqliteDir, "weft-bench-sqlite-")
		if err != nil {
			return nil, fmt.Errorf("make a folder for the SQLite store: %w", err)
		}
		return &Placement{Kind: kind, At: filepath.Join(dir, "tasks.db"), dir: dir}, nil
	case "redis":
		p := &Placement{Kind: kind, At: envOr(redisEnv, defaultRedis), Scope: "weft-bench-" + suffix}
		client, err := p.redisClient()
		if err != nil {
			return nil, err
		}
		defer client.Close()
		if err := client.Ping(ctx).Err(); err != nil {
			return nil, fmt.Errorf("no Redis answers at %s (start it, or set %s): %w", p.At, redisEnv, err)
		}
		return p, nil
	case "postgres":
		p := &Placement{Kind: kind, At: envOr(postgresEnv, defaultPostgres), Scope: "weft_bench_" + suffix}
		conn, err := p.postgresConn(ctx)
		if err != nil {
			return nil, fmt.Errorf("no PostgreSQL answers at %s (start it, or set %s): %w", redact(p.At), postgresEnv, err)
		}
		return p, conn.Close(ctx)
	}
	return nil, fmt.Errorf("store %q is not one of memory, sqlite, redis, postgres", kind)
}

// ServerArgs are the benchmark server's flags for running on the place.
func (p *Placement) ServerArgs() []string {
	args := []string{"-store", p.Kind}
	if p.At != "" {
		args = append(args, "-store-at", p.At)
	}
	if p.Scope != "" {
		args = append(args, "-store-scope", p.Scope)
	}
	return args
}

// Remove deletes everything the row left in its place: the SQLite folder,
// the Redis keys under the prefix, the PostgreSQL schema.
func (p *Placement) Remove(ctx context.Context) error {
	switch p.Kind {
	case "sqlite":
		return os.RemoveAll(p.dir)
	case "redis":
		client, err := p.redisClient()
		if err != nil {
			return err
		}
		defer client.Close()
		var errs []error
		keys := client.Scan(ctx, 0, "{"+p.Scope+"}:*", 1000).Iterator()
		for keys.Next(ctx) {
			errs = append(errs, client.Del(ctx, keys.Val()).Err())
		}
		if err := errors.Join(append(errs, keys.Err())...); err != nil {
			return fmt.Errorf("delete the Redis keys under %s: %w", p.Scope, err)
		}
		return nil
	case "postgres":
		conn, err := p.postgresConn(ctx)
		if err != nil {
			return fmt.Errorf("drop schema %s: %w", p.Scope, err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{p.Scope}.Sanitize()+" CASCADE"); err != nil {
			return fmt.Errorf("drop schema %s: %w", p.Scope, err)
		}
	}
	return nil
}

// redisClient connects to the Redis of p.At.
func (p *Placement) redisClient() (*goredis.Client, error) {
	opts, err := goredis.ParseURL(p.At)
	if err != nil {
		return nil, fmt.Errorf("%s=%q is not a Redis URL: %w", redisEnv, p.At, err)
	}
	return goredis.NewClient(opts), nil
}

// postgresConn connects to the place's database. Its connection string
// is the server's, which may set the pool's size (pool_max_conns): pgx's
// pool reads those parameters, where pgx.Connect would send them to the
// server as settings it does not know.
func (p *Placement) postgresConn(ctx context.Context) (*pgx.Conn, error) {
	pc, err := pgxpool.ParseConfig(p.At)
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, pc.ConnConfig)
}

// envOr returns the environment variable key, or def when it is unset.
func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// redact hides a password in a connection string, for messages.
func redact(conn string) string {
	if cfg, err := pgx.ParseConfig(conn); err == nil && cfg.Password != "" {
		return strings.Replace(conn, cfg.Password, "xxxxx", 1)
	}
	return conn
}
