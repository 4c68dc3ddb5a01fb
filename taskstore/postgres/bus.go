package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/weftmcp/weft/tasks"
)

// busChannel is the notification channel of the tasks in a schema: each
// schema has its own, so that tasks kept apart stay apart. A name longer
// than PostgreSQL's 63 bytes is shortened to a hash of the schema.
func busChannel(schema string) string {
	const prefix, max = "weft_tasks:", 63
	switch {
	case schema == "":
		return "weft_tasks"
	case len(prefix)+len(schema) <= max:
		return prefix + schema
	}
	sum := sha256.Sum256([]byte(schema))
	return prefix + hex.EncodeToString(sum[:16])
}

// reconnectDelay is how long the listener waits before reconnecting after
// losing its connection.
const reconnectDelay = 250 * time.Millisecond

// DefaultListenerCheck is how long the listener waits for a notification
// before it pings the server, and for the ping's answer, unless
// WithListenerCheck says otherwise.
const DefaultListenerCheck = 30 * time.Second

// Bus is a tasks.Bus on PostgreSQL LISTEN/NOTIFY: a tasks.RelayBus whose
// channel every Bus on the database (and schema) listens on, through a
// connection of its own. A notification is sent only when the publishing
// transaction commits, and takes milliseconds to reach the others.
// Signals published while another is being sent wait for it and then go
// together, one notification each, in one transaction. When the
// listening connection is lost, or stops answering the pings it gets when
// idle (WithListenerCheck), the Bus reconnects and wakes every
// subscription to re-read its task, since signals may have been lost
// meanwhile.
//
// Create one with OpenBus and stop it with Close.
type Bus struct {
	*tasks.RelayBus
	pool    *pgxpool.Pool
	channel string
	log     *slog.Logger
	check   time.Duration // the listener's ping interval and timeout
	cancel  context.CancelFunc
	done    chan struct{} // closed when the listener has stopped
}

var _ tasks.Bus = (*Bus)(nil)

// OpenBus connects to the database connString names and starts listening;
// it returns once the first LISTEN is in place, so every signal published
// after it returns is received. logger (nil: slog.Default()) hears of lost
// connections and malformed messages. Close the Bus when done.
func OpenBus(ctx context.Context, connString string, logger *slog.Logger, opts ...Option) (*Bus, error) {
	pc, cfg, err := poolConfig(connString, opts)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.Default()
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: connecting the bus: %w", err)
	}
	channel := busChannel(cfg.schema)
	conn, err := listen(ctx, pool, channel)
	if err != nil {
		pool.Close()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	b := &Bus{pool: pool, channel: channel, log: logger, check: cfg.listenerCheck, cancel: cancel, done: make(chan struct{})}
	n := &notifier{exec: func(ctx context.Context, msgs []string) error {
		if _, err := pool.Exec(ctx, `SELECT pg_notify($1, m) FROM unnest($2::text[]) AS m`, channel, msgs); err != nil {
			return fmt.Errorf("postgres: sending task signals on %s: %w", channel, err)
		}
		return nil
	}}
	b.RelayBus = tasks.NewRelayBus(n.send)
	go b.run(runCtx, conn)
	return b, nil
}

// listen takes a connection out of the pool for good and listens on
// channel with it.
func listen(ctx context.Context, pool *pgxpool.Pool, channel string) (*pgx.Conn, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: connecting the bus's listener: %w", err)
	}
	conn := c.Hijack()
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{channel}.Sanitize()); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("postgres: listening on %s: %w", channel, err)
	}
	return conn, nil
}

// run hands every notification to the RelayBus until ctx ends, listening
// again on a new connection whenever one is lost.
func (b *Bus) run(ctx context.Context, conn *pgx.Conn) {
	defer close(b.done)
	for {
		n, err := b.wait(ctx, conn)
		if err == nil {
			if err := b.Receive(n.Payload); err != nil {
				b.log.Warn("postgres: ignoring a malformed task signal", slog.String("channel", b.channel), slog.Any("error", err))
			}
			continue
		}
		conn.Close(context.WithoutCancel(ctx))
		if ctx.Err() != nil {
			return
		}
		b.log.Warn("postgres: the task bus lost its connection; listening again", slog.String("channel", b.channel), slog.Any("error", err))
		for conn = nil; conn == nil; {
			select {
			case <-ctx.Done():
				return
			case <-time.After(reconnectDelay):
			}
			if conn, err = listen(ctx, b.pool, b.channel); err != nil && !errors.Is(err, context.Canceled) {
				b.log.Warn("postgres: the task bus cannot listen yet", slog.String("channel", b.channel), slog.Any("error", err))
			}
		}
		b.Resync()
	}
}

// wait returns the next notification on conn. Every b.check without one
// it pings the server, and a ping unanswered within b.check ends the wait
// with its error: a connection cut without a word (a failover, a dropped
// route) left the Bus deaf, and every signal lost, for as long as TCP
// keepalive takes to give up, most of an hour with pgx's settings.
func (b *Bus) wait(ctx context.Context, conn *pgx.Conn) (*pgconn.Notification, error) {
	for {
		waitCtx, cancel := context.WithTimeout(ctx, b.check)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		if err == nil || ctx.Err() != nil || waitCtx.Err() == nil {
			return n, err
		}
		pingCtx, cancel := context.WithTimeout(ctx, b.check)
		err = conn.Ping(pingCtx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("the listening connection did not answer a ping within %v: %w", b.check, err)
		}
	}
}

// Close stops listening and releases the Bus's connections. Subscriptions
// stay open but receive nothing more; their owners close them.
func (b *Bus) Close() error {
	b.RelayBus.Close()
	b.cancel()
	<-b.done
	b.pool.Close()
	return nil
}
