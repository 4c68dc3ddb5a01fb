package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// pruneEvery is how many publishes pass between two deletions of signals
// older than the retention.
const pruneEvery = 64

// Bus is a tasks.Bus for the processes sharing one SQLite file on one host.
// A signal is delivered at once to subscriptions of the same Bus, and is
// also written to the file, which every other Bus on it polls: a signal
// takes up to the poll interval to cross processes. Create one with OpenBus
// and stop it with Close.
//
// Signals are kept in the file for the retention period, then deleted; a
// Bus that finds some deleted before it read them wakes every subscription.
type Bus struct {
	path   string
	origin string // tells this Bus's own rows apart when polling
	cfg    config
	w      *sharedWriter // writes signals, in the batches of the file's writes
	db     *sql.DB       // reads other Buses' signals
	local  *tasks.MemoryBus
	cancel context.CancelFunc // stops polling
	done   chan struct{}      // closed when polling has stopped

	mu        sync.Mutex
	published int
	closed    bool

	// pollMu serialises reading the file for signals; last is the sequence
	// number of the newest signal read.
	pollMu sync.Mutex
	last   int64
}

var _ tasks.Bus = (*Bus)(nil)

// OpenBus opens a Bus on the SQLite database at path, creating the file and
// schema as Open does, and starts polling it. Close the Bus when done.
func OpenBus(ctx context.Context, path string, opts ...Option) (*Bus, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.checkStore(path); err != nil {
		return nil, err
	}
	if cfg.pollInterval <= 0 || cfg.retention <= 0 {
		return nil, fmt.Errorf("sqlite: the bus poll interval (%v) and retention (%v) must be positive", cfg.pollInterval, cfg.retention)
	}
	w, err := acquireWriter(ctx, path, cfg)
	if err != nil {
		return nil, err
	}
	db, err := openDB(path, cfg, true)
	if err != nil {
		releaseWriter(w)
		return nil, err
	}
	db.SetMaxOpenConns(1) // one poll at a time
	var last int64
	if err := db.QueryRowContext(ctx, newestSignal).Scan(&last); err != nil {
		db.Close()
		releaseWriter(w)
		return nil, fmt.Errorf("sqlite: opening a bus on %s: reading the newest signal: %w", path, err)
	}
	pollCtx, cancel := context.WithCancel(context.Background())
	b := &Bus{
		path:   path,
		origin: rand.Text(),
		cfg:    cfg,
		w:      w,
		db:     db,
		local:  tasks.NewMemoryBus(),
		cancel: cancel,
		done:   make(chan struct{}),
		last:   last,
	}
	go b.poll(pollCtx)
	return b, nil
}

// Publish implements tasks.Bus.
func (b *Bus) Publish(ctx context.Context, s tasks.Signal) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: publish: %w", err)
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return errBusClosed
	}
	b.published++
	prune := b.published%pruneEvery == 0
	b.mu.Unlock()

	if err := b.local.Publish(ctx, s); err != nil {
		return err
	}
	now := time.Now()
	return b.w.do(ctx, "publish", syncOff, noRuleErrors, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO weft_signals (origin, task_id, kind, published_ms) VALUES (?, ?, ?, ?)`,
			b.origin, s.TaskID, string(s.Kind), now.UnixMilli()); err != nil {
			return fmt.Errorf("writing the signal: %w", err)
		}
		if prune {
			if _, err := tx.ExecContext(ctx, `DELETE FROM weft_signals WHERE published_ms < ?`,
				now.Add(-b.cfg.retention).UnixMilli()); err != nil {
				return fmt.Errorf("deleting old signals: %w", err)
			}
		}
		return nil
	})
}

// noRuleErrors is the keep of writes that have no rule errors to hand over
// unwrapped.
func noRuleErrors(error) bool { return false }

// Subscribe implements tasks.Bus. The subscription receives signals
// published through this Bus at once, and those of other Buses on the file
// at the next poll, which may bring it one written just before it began: a
// harmless wake-up. It reads nothing from the file: catching up on the
// file first, so that it would start with no such signal, was a query per
// subscription, and so per task (the Runtime's record cache subscribes to
// each task it keeps), 21% of the process's CPU in BenchmarkPolledTaskLife
// at 32 in flight with full sync.
func (b *Bus) Subscribe(ctx context.Context, taskID string) (tasks.Subscription, error) {
	return b.subscribing(ctx, "subscribe", func() (tasks.Subscription, error) { return b.local.Subscribe(ctx, taskID) })
}

// SubscribeFunc is Subscribe with fn called for each signal instead of a
// channel to read (see tasks.MemoryBus.SubscribeFunc): the Runtime's
// record cache follows each task it keeps so, with no goroutine per task.
func (b *Bus) SubscribeFunc(ctx context.Context, taskID string, fn func(tasks.Signal)) (tasks.Subscription, error) {
	return b.subscribing(ctx, "subscribe", func() (tasks.Subscription, error) { return b.local.SubscribeFunc(ctx, taskID, fn) })
}

// subscribing runs subscribe under the Bus's lock, so that it cannot race
// Close, unless ctx has ended (an error saying what was being done) or the
// Bus is closed.
func (b *Bus) subscribing(ctx context.Context, what string, subscribe func() (tasks.Subscription, error)) (tasks.Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errBusClosed
	}
	return subscribe()
}

// Close stops polling and releases the Bus's connections. Subscriptions
// stay open but receive nothing more; their owners close them.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	<-b.done
	return errors.Join(b.db.Close(), releaseWriter(b.w))
}

// errBusClosed is returned by calls on a closed Bus.
var errBusClosed = errors.New("sqlite: the bus is closed")

// poll delivers the signals other Buses write, every poll interval, until
// ctx ends.
func (b *Bus) poll(ctx context.Context) {
	defer close(b.done)
	ticker := time.NewTicker(b.cfg.pollInterval)
	defer ticker.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		b.pollMu.Lock()
		err := b.catchUp(ctx)
		b.pollMu.Unlock()
		switch {
		case err != nil && ctx.Err() == nil:
			if !failing {
				b.cfg.logger.Warn("sqlite: the task bus cannot read signals; waiters notice changes at their next poll",
					slog.String("path", b.path), slog.Any("error", err))
			}
			failing = true
		case err == nil:
			failing = false
		}
	}
}

// catchUpQuery returns the signals after a sequence number, each with the
// number of the newest signal ever written (sqlite_sequence's, which
// pruning leaves alone), or that number alone with NULLs when none is
// left: numbers are handed out without gaps, so fewer signals than the
// numbers since mean some were pruned before this Bus read them.
const catchUpQuery = `SELECT q.seq, s.origin, s.task_id, s.kind
FROM sqlite_sequence q LEFT JOIN weft_signals s ON s.seq > ?
WHERE q.name = 'weft_signals' ORDER BY s.seq`

// newestSignal reads the number of the newest signal ever written to the
// file, 0 for none.
const newestSignal = `SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'weft_signals'), 0)`

// catchUp delivers the signals other Buses wrote since the last one read.
// When some were pruned before it could read them (the Bus read nothing
// for longer than the retention), it wakes every subscription instead, as
// the PostgreSQL and Redis Buses do when their listener reconnects. The
// caller holds pollMu.
func (b *Bus) catchUp(ctx context.Context) error {
	rows, err := b.db.QueryContext(ctx, catchUpQuery, b.last)
	if err != nil {
		return err
	}
	defer rows.Close()
	newest, read := b.last, int64(0)
	for rows.Next() {
		var origin, taskID, kind sql.NullString
		if err := rows.Scan(&newest, &origin, &taskID, &kind); err != nil {
			return err
		}
		if !taskID.Valid {
			continue // none left after b.last
		}
		read++
		if origin.String != b.origin {
			b.local.Publish(ctx, tasks.Signal{TaskID: taskID.String, Kind: tasks.SignalKind(kind.String)})
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	lost := newest-b.last != read
	b.last = newest
	if lost {
		b.local.Resync()
	}
	return nil
}
