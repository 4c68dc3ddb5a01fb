package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Option configures Open and OpenBus.
type Option func(*config)

type config struct {
	schema        string
	grace         time.Duration
	listenerCheck time.Duration
}

// DefaultExpiryGrace is how long after its ExpiresAt a task is left before
// the store deletes it by itself, unless WithExpiryGrace says otherwise.
const DefaultExpiryGrace = time.Hour

// WithExpiryGrace sets how long after its ExpiresAt a task is left before
// the store deletes it by itself, whatever its status (default
// DefaultExpiryGrace): every Create deletes up to two such tasks, so the
// table stops growing with expired tasks even when no Runtime sweeps it.
// The Runtime's expiry sweep normally deletes a task long before, after
// cancelling its work; this is the backstop, as a key's TTL is in Redis.
func WithExpiryGrace(d time.Duration) Option { return func(c *config) { c.grace = d } }

// WithListenerCheck sets how long a Bus's listener waits for a
// notification before it pings the server, and how long it waits for the
// answer before it listens again on a new connection and wakes every
// subscription (default DefaultListenerCheck). OpenBus reads it; Open
// ignores it.
func WithListenerCheck(d time.Duration) Option { return func(c *config) { c.listenerCheck = d } }

// WithSchema keeps the tasks in the named schema, created if missing,
// instead of the first schema of the connection's search_path: several
// applications, or tests, can share one database.
func WithSchema(name string) Option { return func(c *config) { c.schema = name } }

// poolConfig parses connString (a URL or key=value DSN, as pgx takes) and
// applies the options.
func poolConfig(connString string, opts []Option) (*pgxpool.Config, config, error) {
	c := config{grace: DefaultExpiryGrace, listenerCheck: DefaultListenerCheck}
	for _, o := range opts {
		o(&c)
	}
	if c.grace < time.Millisecond {
		return nil, c, fmt.Errorf("postgres: the expiry grace must be at least a millisecond, not %v", c.grace)
	}
	if c.listenerCheck < time.Millisecond {
		return nil, c, fmt.Errorf("postgres: the listener check must be at least a millisecond, not %v", c.listenerCheck)
	}
	pc, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, c, fmt.Errorf("postgres: the connection string is not one pgx reads: %w", err)
	}
	if c.schema != "" {
		pc.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{c.schema}.Sanitize()
	}
	return pc, c, nil
}

// The SQLSTATE codes of a schema created meanwhile by another session.
const (
	duplicateSchema = "42P06"
	uniqueViolation = "23505"
)

// createSchema creates the configured schema when it is missing. Instances
// started together may all find it missing: CREATE SCHEMA IF NOT EXISTS
// then waits for the first one's and fails with a unique violation on the
// catalog (or duplicate_schema) once it commits, which means the schema is
// there.
func (c config) createSchema(ctx context.Context, pool *pgxpool.Pool) error {
	if c.schema == "" {
		return nil
	}
	_, err := pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{c.schema}.Sanitize())
	var pgErr *pgconn.PgError
	if err != nil && errors.As(err, &pgErr) &&
		(pgErr.Code == duplicateSchema || pgErr.Code == uniqueViolation && pgErr.ConstraintName == "pg_namespace_nspname_index") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("postgres: creating the schema %q: %w", c.schema, err)
	}
	return nil
}
