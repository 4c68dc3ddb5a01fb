package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	sqlitedriver "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Group commit. Every write of a process to a file (its Stores', its
// SessionStores' and its Buses') is queued to one writer goroutine, which
// commits whatever is queued in one transaction: one lock and one disk sync
// for a batch instead of one per write. With full sync and 32 clients
// polling, one transaction per write (3 a task) ran 153 tasks/s against
// 455 at one client; batched, 0.34 commits a task and 1,138 tasks/s
// (BenchmarkPolledTaskLife; docs/decisions.md, "Durable stores under
// load").
//
// Each write still stands alone: it runs inside a savepoint, so one that
// fails is rolled back by itself and its caller alone gets the error, and
// its caller is answered only after the commit, when every reader sees it.

// maxBatch bounds the writes one transaction commits, so that a write
// queued behind a long batch waits for at most that many.
const maxBatch = 256

// writeFunc is a write made inside the writer's transaction. ctx is the
// writer's, not the caller's: a caller's cancelled context must not
// interrupt the statements of others sharing the transaction.
type writeFunc func(ctx context.Context, tx *sql.Tx) error

// Request states: queued until the writer takes it, or until its caller
// gives up on it first.
const (
	requestQueued int32 = iota
	requestTaken
	requestAbandoned
)

// writeRequest is one caller's write waiting for the writer.
type writeRequest struct {
	op   string
	sync Synchronous // the durability its commit needs
	fn   writeFunc
	// keep tells the errors fn returns to hand over unwrapped (the task and
	// session rules' errors, which callers test for).
	keep  func(error) bool
	state atomic.Int32
	done  chan error // receives the outcome, once
}

// writer commits a file's queued writes through one connection.
type writer struct {
	path string
	db   *sql.DB // one connection
	save *sql.Stmt
	// release and rollback end a write's savepoint.
	release, rollback *sql.Stmt

	queue    chan *writeRequest
	stop     chan struct{} // closed to stop the writer
	finished chan struct{} // closed when the writer has stopped
	sync     Synchronous   // the setting of the connection now

	commits atomic.Int64 // transactions committed, for benchmarks
	writes  atomic.Int64 // writes committed, for benchmarks
}

// errWriterClosed is a write's error once every Store and Bus on the file
// in this process is closed.
var errWriterClosed = errors.New("the store is closed")

// startWriter starts the writer on db, a pool of one connection with the
// schema in place.
func startWriter(ctx context.Context, path string, db *sql.DB) (*writer, error) {
	w := &writer{path: path, db: db, queue: make(chan *writeRequest, maxBatch),
		stop: make(chan struct{}), finished: make(chan struct{}), sync: SyncFull}
	var errs []error
	prep := func(query string) *sql.Stmt {
		s, err := db.PrepareContext(ctx, query)
		errs = append(errs, err)
		return s
	}
	w.save, w.release, w.rollback = prep(`SAVEPOINT write`), prep(`RELEASE write`), prep(`ROLLBACK TO write`)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("sqlite: opening %s: preparing the writer's statements: %w", path, err)
	}
	go w.run()
	return w, nil
}

// do queues fn and waits for its outcome. If ctx ends while fn is still
// queued, fn is dropped and do returns ctx's error; once the writer has
// taken it, do waits for the commit.
func (w *writer) do(ctx context.Context, op string, sync Synchronous, keep func(error) bool, fn writeFunc) error {
	req := &writeRequest{op: op, sync: sync, fn: fn, keep: keep, done: make(chan error, 1)}
	select {
	case w.queue <- req:
	case <-ctx.Done():
		return fmt.Errorf("sqlite: %s: %w", op, ctx.Err())
	case <-w.stop:
		return fmt.Errorf("sqlite: %s on %s: %w", op, w.path, errWriterClosed)
	}
	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		if req.state.CompareAndSwap(requestQueued, requestAbandoned) {
			return fmt.Errorf("sqlite: %s: %w", op, ctx.Err())
		}
	case <-w.finished:
		if req.state.CompareAndSwap(requestQueued, requestAbandoned) {
			return fmt.Errorf("sqlite: %s on %s: %w", op, w.path, errWriterClosed)
		}
	}
	return <-req.done // taken: the writer answers after its commit
}

// run commits batches of queued writes until stopped.
func (w *writer) run() {
	defer close(w.finished)
	batch := make([]*writeRequest, 0, maxBatch)
	for {
		select {
		case <-w.stop:
			return
		case req := <-w.queue:
			batch = append(batch[:0], req)
		}
	more:
		for len(batch) < maxBatch {
			select {
			case req := <-w.queue:
				batch = append(batch, req)
			default:
				break more
			}
		}
		w.commit(batch)
		clear(batch)
	}
}

// commit runs the batch's writes in one transaction, each in a savepoint,
// and answers each caller.
func (w *writer) commit(batch []*writeRequest) {
	ctx := context.Background()
	live := batch[:0]
	need := syncOff
	for _, req := range batch {
		if req.state.CompareAndSwap(requestQueued, requestTaken) {
			live = append(live, req)
			if req.sync.rank() > need.rank() {
				need = req.sync
			}
		}
	}
	if len(live) == 0 {
		return
	}
	if err := w.setSync(ctx, need); err != nil {
		w.failAll(live, "setting the commit durability on", err)
		return
	}
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		w.failAll(live, "starting a write transaction on", explainBusy(err))
		return
	}
	errs := make([]error, len(live))
	alone := len(live) == 1 // a write alone needs no savepoint: the transaction is its own
	for i, req := range live {
		if !alone {
			if _, err := tx.StmtContext(ctx, w.save).ExecContext(ctx); err != nil {
				tx.Rollback()
				w.failAll(live, "starting a savepoint on", err)
				return
			}
		}
		errs[i] = req.fn(ctx, tx)
		end := w.release
		if errs[i] != nil {
			end = w.rollback
		}
		if alone {
			continue
		}
		if _, err := tx.StmtContext(ctx, end).ExecContext(ctx); err != nil {
			// A failure SQLite answers by rolling back the whole transaction
			// (disk full, I/O error) takes the savepoint with it.
			tx.Rollback()
			w.failAll(live, "ending a savepoint on", errors.Join(errs[i], err))
			return
		}
		if errs[i] != nil {
			if _, err := tx.StmtContext(ctx, w.release).ExecContext(ctx); err != nil {
				tx.Rollback()
				w.failAll(live, "ending a savepoint on", err)
				return
			}
		}
	}
	if alone && errs[0] != nil {
		tx.Rollback()
		live[0].done <- w.failure(live[0], errs[0])
		return
	}
	if err := tx.Commit(); err != nil {
		w.failAll(live, "committing to", err)
		return
	}
	w.commits.Add(1)
	for i, req := range live {
		if errs[i] != nil {
			req.done <- w.failure(req, errs[i])
			continue
		}
		w.writes.Add(1)
		req.done <- nil
	}
}

// failure returns the error for a write whose fn failed.
func (w *writer) failure(req *writeRequest, err error) error {
	if req.keep(err) {
		return err
	}
	return fmt.Errorf("sqlite: %s on %s: %w", req.op, w.path, err)
}

// failAll answers every write of a batch that could not be committed.
func (w *writer) failAll(live []*writeRequest, step string, err error) {
	for _, req := range live {
		req.done <- fmt.Errorf("sqlite: %s: %s %s: %w", req.op, step, w.path, err)
	}
}

// explainBusy adds to SQLite's "database is locked" what it means for a
// write transaction that could not begin, and what to change.
func explainBusy(err error) error {
	var e *sqlitedriver.Error
	if errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY {
		return fmt.Errorf("another connection (another process) held the file's write lock for longer than the busy timeout, which WithBusyTimeout sets: %w", err)
	}
	return err
}

// setSync sets the connection's durability for the next commit, when it
// differs: signals need none, tasks the Store's.
func (w *writer) setSync(ctx context.Context, s Synchronous) error {
	if s == w.sync {
		return nil
	}
	if _, err := w.db.ExecContext(ctx, `PRAGMA synchronous = `+string(s)); err != nil {
		return err
	}
	w.sync = s
	return nil
}

// close stops the writer once the writes it has taken are committed, fails
// those still queued, and closes the connection.
func (w *writer) close() error {
	close(w.stop)
	<-w.finished
	for {
		select {
		case req := <-w.queue:
			if req.state.CompareAndSwap(requestQueued, requestTaken) {
				req.done <- fmt.Errorf("sqlite: %s on %s: %w", req.op, w.path, errWriterClosed)
			}
		default:
			return errors.Join(w.save.Close(), w.release.Close(), w.rollback.Close(), w.db.Close())
		}
	}
}
