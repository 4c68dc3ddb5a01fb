package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/weftmcp/weft/tasks"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is a tasks.Store in a SQLite file. It is safe for concurrent use,
// and several Stores, in one process or several, may share one file. Create
// one with Open and release it with Close.
type Store struct {
	path string
	// w commits every write of this process to the file, batched (see
	// writer): writers of this process queue for it instead of spinning on
	// SQLite's lock, and writers of other processes wait on the busy
	// timeout.
	w *sharedWriter
	// sync is the durability the Store's commits need.
	sync Synchronous
	// r serves reads; in WAL mode they never wait for the writer.
	r  *sql.DB
	st *statements
	// grace is how long after expiry Create deletes a task by itself.
	grace time.Duration
}

var _ tasks.Store = (*Store)(nil)

// Open opens the SQLite database at path, creating the file if needed, and
// creates or migrates the task schema. Close the Store when done.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.checkStore(path); err != nil {
		return nil, err
	}
	w, err := acquireWriter(ctx, path, cfg)
	if err != nil {
		return nil, err
	}
	r, err := openDB(path, cfg, true)
	if err != nil {
		releaseWriter(w)
		return nil, err
	}
	r.SetMaxOpenConns(cfg.readConns)
	r.SetMaxIdleConns(cfg.readConns)
	st, err := prepare(ctx, r, w.db)
	if err != nil {
		r.Close()
		releaseWriter(w)
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	return &Store{path: path, w: w, sync: cfg.synchronous, r: r, st: st, grace: cfg.grace}, nil
}

// checkStore rejects settings and paths Open cannot work with.
func (c *config) checkStore(path string) error {
	switch {
	case path == "" || path == ":memory:" || strings.HasPrefix(path, "file:"):
		return fmt.Errorf("sqlite: %q is not a file path; give the path of a database file (for a store that "+
			"lives only as long as the process, use tasks.NewMemoryStore)", path)
	case strings.ContainsRune(path, '?'):
		return fmt.Errorf("sqlite: the path %q contains '?', which the driver reads as the start of its options; use a path without it", path)
	case c.busyTimeout < 0:
		return fmt.Errorf("sqlite: the busy timeout must not be negative, not %v", c.busyTimeout)
	case c.grace < time.Millisecond:
		return fmt.Errorf("sqlite: the expiry grace must be at least a millisecond, not %v", c.grace)
	case c.readConns < 1:
		return fmt.Errorf("sqlite: at least one read connection is needed, not %d", c.readConns)
	case c.synchronous != SyncFull && c.synchronous != SyncNormal:
		return fmt.Errorf("sqlite: unknown synchronous setting %q; use SyncFull or SyncNormal", c.synchronous)
	}
	return nil
}

// openDB opens a pool on the file: for writing (WAL mode, foreign keys,
// transactions that take the write lock at BEGIN) or for reading only.
func openDB(path string, cfg config, readOnly bool) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", cfg.busyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous("+string(cfg.synchronous)+")")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("_txlock", "immediate")
	}
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	return db, nil
}

// Close releases the Store's connections. Calls after Close fail.
func (s *Store) Close() error {
	s.st.close()
	return errors.Join(s.r.Close(), releaseWriter(s.w))
}

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, rec *tasks.Record, quota tasks.Quota) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: create: %w", err)
	}
	if err := tasks.CheckCreate(rec); err != nil {
		return err
	}
	return s.write(ctx, "create", func(ctx context.Context, tx *sql.Tx) error {
		var taken int
		if err := tx.StmtContext(ctx, s.st.exists).QueryRowContext(ctx, rec.ID).Scan(&taken); err != nil {
			return err
		}
		if taken > 0 {
			return fmt.Errorf("%w: %s", tasks.ErrExists, rec.ID)
		}
		if err := s.dropLongExpired(ctx, tx, rec.CreatedAt); err != nil {
			return err
		}
		if err := s.checkQuota(ctx, tx, rec.Principal, quota); err != nil {
			return err
		}
		args, err := insertArgs(rec)
		if err != nil {
			return err
		}
		res, err := tx.StmtContext(ctx, s.st.insert).ExecContext(ctx, args...)
		if err != nil {
			return err
		}
		seq, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if err := s.insertInputs(ctx, tx, seq, rec.Inputs, 0); err != nil {
			return err
		}
		rec.Version = 1
		return nil
	})
}

// checkQuota fails with a *tasks.LimitError when another unfinished task
// would exceed the quota. It counts at most the limit's worth of rows.
func (s *Store) checkQuota(ctx context.Context, tx *sql.Tx, principal string, quota tasks.Quota) error {
	if quota.PerPrincipal > 0 {
		var n int
		err := tx.StmtContext(ctx, s.st.countPrincipal).QueryRowContext(ctx, principal, quota.PerPrincipal).Scan(&n)
		if err != nil {
			return err
		}
		if n >= quota.PerPrincipal {
			return &tasks.LimitError{Scope: tasks.LimitPrincipal, Limit: quota.PerPrincipal}
		}
	}
	if quota.Total > 0 {
		var n int
		err := tx.StmtContext(ctx, s.st.countTotal).QueryRowContext(ctx, quota.Total).Scan(&n)
		if err != nil {
			return err
		}
		if n >= quota.Total {
			return &tasks.LimitError{Scope: tasks.LimitTotal, Limit: quota.Total}
		}
	}
	return nil
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: get: %w", err)
	}
	found, _, err := queryTasks(ctx, s.st.get, id)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get task %s from %s: %w", id, s.path, err)
	}
	if len(found) == 0 {
		return nil, tasks.ErrNotFound
	}
	return found[0], nil
}

// Update implements tasks.Store.
func (s *Store) Update(ctx context.Context, rec *tasks.Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: update: %w", err)
	}
	var version uint64
	err := s.write(ctx, "update", func(ctx context.Context, tx *sql.Tx) error {
		found, seqs, err := queryTasks(ctx, tx.StmtContext(ctx, s.st.getForUpdate), rec.ID)
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
		if _, err := tx.StmtContext(ctx, s.st.update).ExecContext(ctx, args...); err != nil {
			return err
		}
		// CheckUpdate let through only answers to unanswered requests and
		// requests appended after the recorded ones.
		for _, pos := range tasks.NewAnswers(stored, rec) {
			if _, err := tx.StmtContext(ctx, s.st.answer).ExecContext(ctx,
				rawArg(rec.Inputs[pos].Response), seq, pos); err != nil {
				return err
			}
		}
		return s.insertInputs(ctx, tx, seq, rec.Inputs[len(stored.Inputs):], len(stored.Inputs))
	})
	if err != nil {
		return err
	}
	rec.Version = version
	return nil
}

// Delete implements tasks.Store.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: delete: %w", err)
	}
	return s.write(ctx, "delete", func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, s.st.remove).ExecContext(ctx, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return tasks.ErrNotFound
		}
		return nil
	})
}

// write has fn run in a write transaction and committed, with other writes
// queued at the time. Errors of the task rules (from the tasks package) are
// returned as they are; others say what failed where.
func (s *Store) write(ctx context.Context, op string, fn writeFunc) error {
	return s.w.do(ctx, op, s.sync, tasks.IsRuleError, fn)
}
