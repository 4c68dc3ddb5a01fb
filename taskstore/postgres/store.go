package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/weftmcp/weft/tasks"
)

// Store is a tasks.Store in a PostgreSQL database. It is safe for
// concurrent use, and any number of Stores, in one process or many, may
// share one database (and schema). Create one with Open and release it
// with Close.
type Store struct {
	pool *pgxpool.Pool
	// writes sends task creations and updates, several in one transaction
	// when they come together.
	writes *groupWriter
	// channel is the notification channel of the schema's Bus.
	channel string
	// seen remembers the tasks this Store last read or wrote, so that an
	// Update of a record read through it need not read it again.
	seen *tasks.VersionCache
	// grace is how long after expiry Create deletes a task by itself.
	grace time.Duration
}

var _ tasks.SignallingStore = (*Store)(nil)

// Open connects to the database connString names (a postgres:// URL or a
// key=value DSN), and creates or migrates the task schema. Close the Store
// when done.
func Open(ctx context.Context, connString string, opts ...Option) (*Store, error) {
	pc, cfg, err := poolConfig(connString, opts)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: connecting: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connecting to %s: %w", pc.ConnConfig.Host, err)
	}
	if err := cfg.createSchema(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{pool: pool, writes: newGroupWriter(pool), channel: busChannel(cfg.schema),
		seen: tasks.NewVersionCache(seenTasks), grace: cfg.grace}, nil
}

// SignalsTo implements tasks.SignallingStore: the store's writes notify on
// bus's channel when bus is a Bus of the same schema on the same database
// (the same host, port and database name in the two connection strings).
// A Bus reaching the database by another name (localhost for 127.0.0.1)
// is not paired: the Runtime then publishes through it, as it always can.
func (s *Store) SignalsTo(bus tasks.Bus) *tasks.RelayBus {
	b, ok := bus.(*Bus)
	if !ok || b.channel != s.channel || !sameDatabase(b.pool.Config().ConnConfig, s.pool.Config().ConnConfig) {
		return nil
	}
	return b.RelayBus
}

// sameDatabase reports whether a and b connect to one database.
func sameDatabase(a, b *pgx.ConnConfig) bool {
	return a.Host == b.Host && a.Port == b.Port && a.Database == b.Database
}

// Close releases the Store's connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// seenTasks bounds the tasks a Store remembers for Update: enough for the
// tasks a busy instance updates within a few seconds.
const seenTasks = 10_000

// maxStaleWrites bounds how often Update reads a task again that changed
// between the state it checked and its write, before reporting a
// conflict.
const maxStaleWrites = 3

// Advisory lock keys serializing quota checks: one for the total, and one
// per principal derived from its name.
const (
	quotaLockTotal     = 0x77656674746f74 // "wefttot"
	quotaLockPrincipal = 0x77656674707263 // "weftprc", the seed of the principal's hash
)

// Create implements tasks.Store, in one round trip, shared with the
// other writes made meanwhile (see groupWriter): the INSERT itself checks
// the quota, after the advisory locks that serialize quota checks. A
// transaction of its own took four round trips and two more per quota
// (BEGIN, DELETE, lock and count per quota, INSERT, COMMIT: eight under
// the Runtime's default limits).
func (s *Store) Create(ctx context.Context, rec *tasks.Record, quota tasks.Quota) error {
	return s.create(ctx, rec, quota, "")
}

// CreateSignalling implements tasks.SignallingStore: the INSERT's
// statement notifies msg on the Bus's channel when it stores the task.
func (s *Store) CreateSignalling(ctx context.Context, rec *tasks.Record, quota tasks.Quota, msg string) error {
	return s.create(ctx, rec, quota, msg)
}

// create stores rec and, when msg is not "", notifies it in the same
// statement.
func (s *Store) create(ctx context.Context, rec *tasks.Record, quota tasks.Quota, msg string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: create: %w", err)
	}
	if err := tasks.CheckCreate(rec); err != nil {
		return err
	}
	args, err := insertArgs(rec)
	if err != nil {
		return err
	}
	w := &taskWrite{query: insertTaskWithinQuota, args: append(args, int64(quota.Total), int64(quota.PerPrincipal)),
		create: true, quota: quota, principal: rec.Principal}
	if at, ok := s.longExpiredBefore(rec.CreatedAt); ok {
		w.expiredBefore = at
	}
	if msg != "" {
		w.query, w.args = insertTaskNotifying, append(w.args, s.channel, msg)
	}
	if err := s.writes.write(ctx, w); err != nil {
		return fmt.Errorf("postgres: create task %s: %w", rec.ID, err)
	}
	if !w.wrote {
		return s.refusal(ctx, rec, quota)
	}
	rec.Version = 1
	s.seen.Put(w.seq, rec) // the Runtime's next write may come with no read before it
	return nil
}

// refusal tells why Create inserted nothing: the ID is taken, or a quota
// is full (as a count after the refusal shows it).
func (s *Store) refusal(ctx context.Context, rec *tasks.Record, quota tasks.Quota) error {
	var taken bool
	var total, mine int64
	// The counts are planned as in a creation's batch (planOnIndexes): a
	// client refused again and again must not have the table read each time.
	b := &pgx.Batch{}
	b.Queue(planOnIndexes)
	b.Queue(`SELECT EXISTS (SELECT 1 FROM weft_tasks WHERE id = $1),
		(SELECT count(*) FROM (SELECT 1 FROM weft_tasks WHERE unfinished LIMIT $2) q),
		(SELECT count(*) FROM (SELECT 1 FROM weft_tasks WHERE principal = $3 AND unfinished LIMIT $4) q)`,
		rec.ID, int64(quota.Total), rec.Principal, int64(quota.PerPrincipal)).QueryRow(func(row pgx.Row) error {
		return row.Scan(&taken, &total, &mine)
	})
	err := s.pool.SendBatch(ctx, b).Close()
	switch {
	case err != nil:
		return fmt.Errorf("postgres: create task %s: finding why it was refused: %w", rec.ID, err)
	case taken:
		return fmt.Errorf("%w: %s", tasks.ErrExists, rec.ID)
	case quota.Total > 0 && total >= int64(quota.Total):
		return &tasks.LimitError{Scope: tasks.LimitTotal, Limit: quota.Total}
	}
	return &tasks.LimitError{Scope: tasks.LimitPrincipal, Limit: quota.PerPrincipal}
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: get: %w", err)
	}
	rec, seq, err := s.read(ctx, id)
	if err != nil {
		return nil, err
	}
	s.seen.Put(seq, rec)
	return rec, nil
}

// Update implements tasks.Store. A change that adds no input rows (every
// change but asking and answering) is one conditional UPDATE, sent with
// the other writes made meanwhile (see groupWriter): checked with
// tasks.CheckUpdate against the state the record was read at (remembered
// from the Get before it, or read again), and written only if the task is
// still at that version. That is one round trip where a locking
// transaction took four (BEGIN, SELECT ... FOR UPDATE, UPDATE, COMMIT).
func (s *Store) Update(ctx context.Context, rec *tasks.Record) error {
	return s.update(ctx, rec, "")
}

// UpdateSignalling implements tasks.SignallingStore: the UPDATE's
// statement notifies msg on the Bus's channel when it writes the task. An
// Update that answers or adds input requests notifies in its transaction.
func (s *Store) UpdateSignalling(ctx context.Context, rec *tasks.Record, msg string) error {
	return s.update(ctx, rec, msg)
}

// update writes rec and, when msg is not "", notifies it in the same
// transaction.
func (s *Store) update(ctx context.Context, rec *tasks.Record, msg string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: update: %w", err)
	}
	stored, seq, remembered := s.seen.At(rec.ID, rec.Version)
	for range maxStaleWrites {
		if !remembered {
			var err error
			if stored, seq, err = s.read(ctx, rec.ID); err != nil {
				return err
			}
		}
		if err := tasks.CheckUpdate(stored, rec); err != nil {
			return err
		}
		if len(tasks.NewAnswers(stored, rec)) > 0 || len(rec.Inputs) > len(stored.Inputs) {
			return s.updateInputs(ctx, rec, msg)
		}
		version := stored.Version + 1
		args, err := updateArgs(rec, version, seq)
		if err != nil {
			return err
		}
		w := &taskWrite{query: updateTaskAt, args: append(args, int64(stored.Version))}
		if msg != "" {
			w.query, w.args = updateTaskAtNotifying, append(w.args, s.channel, msg)
		}
		if err := s.writes.write(ctx, w); err != nil {
			return fmt.Errorf("postgres: update task %s: %w", rec.ID, err)
		}
		if w.wrote {
			rec.Version = version
			s.seen.Put(seq, rec)
			return nil
		}
		// The task changed, or went, since that state: check against the new one.
		s.seen.Forget(rec.ID)
		remembered = false
	}
	return fmt.Errorf("%w: task %s kept changing while it was being written", tasks.ErrConflict, rec.ID)
}

// read returns the stored task and its row's sequence number.
func (s *Store) read(ctx context.Context, id string) (*tasks.Record, int64, error) {
	found, seqs, err := queryTasks(ctx, s.pool, selectByID, id)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: get task %s: %w", id, err)
	}
	if len(found) == 0 {
		return nil, 0, tasks.ErrNotFound
	}
	return found[0], seqs[0], nil
}

// updateInputs makes an Update that answers or adds input requests, in a
// transaction that locks the task's row, and notifies msg in it when msg
// is not "".
func (s *Store) updateInputs(ctx context.Context, rec *tasks.Record, msg string) error {
	var version uint64
	err := s.write(ctx, "update", func(tx pgx.Tx) error {
		found, seqs, err := queryTasks(ctx, tx, selectByIDForUpdate, rec.ID)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return tasks.ErrNotFound
		}
		stored, seq := found[0], seqs[0]
		if err := tasks.CheckUpdate(stored, rec); err != nil {
			return err
		}
		version = stored.Version + 1
		args, err := updateArgs(rec, version, seq)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, updateTask, args...); err != nil {
			return err
		}
		// CheckUpdate let through only answers to unanswered requests and
		// requests appended after the recorded ones.
		for _, pos := range tasks.NewAnswers(stored, rec) {
			if _, err := tx.Exec(ctx, `UPDATE weft_task_inputs SET response = $1 WHERE task_seq = $2 AND pos = $3`,
				rawArg(rec.Inputs[pos].Response), seq, pos); err != nil {
				return err
			}
		}
		if err := insertInputs(ctx, tx, seq, rec.Inputs[len(stored.Inputs):], len(stored.Inputs)); err != nil {
			return err
		}
		if msg == "" {
			return nil
		}
		_, err = tx.Exec(ctx, `SELECT pg_notify($1, $2)`, s.channel, msg)
		return err
	})
	if err != nil {
		return err
	}
	rec.Version = version
	s.seen.Forget(rec.ID)
	return nil
}

// Delete implements tasks.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: delete: %w", err)
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM weft_tasks WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("postgres: delete task %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return tasks.ErrNotFound
	}
	return nil
}

// Expired implements tasks.Store.
func (s *Store) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.ids(ctx, "expired", `SELECT id FROM weft_tasks
		WHERE expires_ns IS NOT NULL AND expires_ns <= $1 ORDER BY expires_ns LIMIT $2`, now, limit)
}

// DeleteExpired implements tasks.Store. Instances sweeping at once skip
// each other's rows instead of waiting for them.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time, limit int) ([]tasks.DeletedTask, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: delete expired: %w", err)
	}
	at, err := timeArg(now)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `DELETE FROM weft_tasks WHERE seq IN (SELECT seq FROM weft_tasks
		WHERE expires_ns IS NOT NULL AND expires_ns <= $1 AND NOT unfinished ORDER BY expires_ns LIMIT $2
		FOR UPDATE SKIP LOCKED)
		RETURNING id, principal, method, name, status`, at, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: deleting expired tasks: %w", err)
	}
	gone, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (tasks.DeletedTask, error) {
		var d tasks.DeletedTask
		var status string
		err := row.Scan(&d.ID, &d.Principal, &d.Method, &d.Name, &status)
		d.Status = tasks.Status(status)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: deleting expired tasks: %w", err)
	}
	return gone, nil
}

// dropLongExpired deletes, in a batch of creations, up to $2 tasks (two
// a creation) that expired before $1, whatever their status: the bound on
// expired tasks when no Runtime sweeps.
const dropLongExpired = `DELETE FROM weft_tasks WHERE seq IN (SELECT seq FROM weft_tasks
	WHERE expires_ns IS NOT NULL AND expires_ns <= $1 ORDER BY expires_ns LIMIT $2 FOR UPDATE SKIP LOCKED)`

// longExpiredBefore returns the time before which a task created at
// created has expired long enough (the grace) for Create to delete it.
func (s *Store) longExpiredBefore(created time.Time) (any, bool) {
	if created.IsZero() {
		return nil, false
	}
	at, err := timeArg(created.Add(-s.grace))
	if err != nil {
		return nil, false // too early in time for anything to have expired a grace ago
	}
	return at, true
}

// LeaseExpired implements tasks.Store.
func (s *Store) LeaseExpired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.ids(ctx, "lease-expired", `SELECT id FROM weft_tasks
		WHERE unfinished AND owner <> '' AND lease_expires_ns IS NOT NULL AND lease_expires_ns <= $1
		ORDER BY lease_expires_ns LIMIT $2`, now, limit)
}

// ids runs a query selecting task IDs up to a time.
func (s *Store) ids(ctx context.Context, what, query string, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	at, err := timeArg(now)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, query, at, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: finding %s tasks: %w", what, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: finding %s tasks: %w", what, err)
	}
	return ids, nil
}

// write runs fn in a transaction and commits it. Errors of the task rules
// (from the tasks package) are returned as they are; others say what
// failed.
func (s *Store) write(ctx context.Context, op string, fn func(pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: %s: starting a transaction: %w", op, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		if tasks.IsRuleError(err) {
			return err
		}
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: %s: committing: %w", op, err)
	}
	return nil
}
