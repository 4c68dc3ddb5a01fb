package placement

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// place makes a place in kind's store for t, skipping when the service
// does not answer (failing under CI=true).
func place(t *testing.T, kind string) *Placement {
	t.Helper()
	p, err := New(t.Context(), kind, t.TempDir())
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return p
}

func TestServerArgsNameThePlace(t *testing.T) {
	for kind, want := range map[string][]string{
		"memory":   {"-store", "memory"},
		"sqlite":   {"-store", "sqlite", "-store-at"},
		"redis":    {"-store", "redis", "-store-at", "redis://", "-store-scope", "weft-bench-"},
		"postgres": {"-store", "postgres", "-store-at", "postgres://", "-store-scope", "weft_bench_"},
	} {
		p := place(t, kind)
		got := p.ServerArgs()
		if len(got) < len(want) {
			t.Errorf("%s: ServerArgs = %q, want %q (as prefixes)", kind, got, want)
			continue
		}
		for i, w := range want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: ServerArgs = %q, want %q (as prefixes)", kind, got, want)
			}
		}
		if err := p.Remove(t.Context()); err != nil {
			t.Error(err)
		}
	}
	if _, err := New(t.Context(), "mongo", ""); err == nil {
		t.Error("New accepted a store that does not exist")
	}
}

func TestEveryPlaceIsItsOwnAndRemovedWhole(t *testing.T) {
	ctx := t.Context()
	t.Run("sqlite", func(t *testing.T) {
		p := place(t, "sqlite")
		if err := os.WriteFile(p.At, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := p.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p.dir); !os.IsNotExist(err) {
			t.Errorf("the SQLite folder is still there: %v", err)
		}
	})
	t.Run("redis", func(t *testing.T) {
		p, other := place(t, "redis"), place(t, "redis")
		if p.Scope == other.Scope {
			t.Fatalf("two places share the prefix %s", p.Scope)
		}
		client, err := p.redisClient()
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		mine, theirs := "{"+p.Scope+"}:task:1", "{"+other.Scope+"}:task:1"
		for _, key := range []string{mine, theirs} {
			if err := client.Set(ctx, key, "x", 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
		defer client.Del(context.WithoutCancel(ctx), theirs)
		if err := p.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := client.Exists(ctx, mine).Result(); n != 0 {
			t.Error("a key under the removed prefix survived")
		}
		if n, _ := client.Exists(ctx, theirs).Result(); n != 1 {
			t.Error("removing one place deleted another's key")
		}
	})
	t.Run("postgres", func(t *testing.T) {
		p := place(t, "postgres")
		conn, err := pgx.Connect(ctx, p.At)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		schema := pgx.Identifier{p.Scope}.Sanitize()
		if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema+"; CREATE TABLE "+schema+".t (x int)"); err != nil {
			t.Fatal(err)
		}
		if err := p.Remove(ctx); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1", p.Scope).Scan(&n); err != nil || n != 0 {
			t.Errorf("schema %s: %d left, %v", p.Scope, n, err)
		}
	})
}

func TestServiceReadsTheStoresProcesses(t *testing.T) {
	if (&Placement{Kind: "memory"}).Service() != nil || (&Placement{Kind: "sqlite"}).Service() != nil {
		t.Error("a store inside the server has a service to read")
	}
	for _, kind := range []string{"redis", "postgres"} {
		p := place(t, kind)
		spent, err := p.Service().Spent(t.Context())
		if err != nil {
			t.Errorf("%s: %v", kind, err)
			continue
		}
		// Redis counts its commands; PostgreSQL's are not read (-1), nor
		// are round trips, which the server counts.
		if spent.CPU < 0 || (kind == "redis" && spent.Commands <= 0) || (kind == "postgres" && spent.Commands != -1) || spent.RoundTrips != -1 {
			t.Errorf("%s: spent %+v", kind, spent)
		}
	}
}

// TestAPostgresPlaceMayBoundItsServersPool: a connection string that sets
// the pool's size (pool_max_conns, read by the server's pgx pool) is one
// the place can also connect with and remove.
func TestAPostgresPlaceMayBoundItsServersPool(t *testing.T) {
	url := envOr(postgresEnv, defaultPostgres)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	t.Setenv(postgresEnv, url+sep+"pool_max_conns=2")
	p := place(t, "postgres")
	if !strings.Contains(p.At, "pool_max_conns=2") {
		t.Fatalf("the place is at %s, not where %s says", redact(p.At), postgresEnv)
	}
	if err := p.Remove(t.Context()); err != nil {
		t.Fatal(err)
	}
}
