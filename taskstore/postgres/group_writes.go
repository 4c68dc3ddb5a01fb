package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/weftmcp/weft/internal/groupwrite"
	"github.com/weftmcp/weft/tasks"
)

// Group commit. A Store's task creations and updates go to PostgreSQL
// through a groupWriter: a write made while another batch is in flight
// waits for it, then goes with every write that waited meanwhile, in one
// batch, which PostgreSQL runs as one transaction: one round trip, one
// commit and one WAL flush for them all. A lone write goes at once, so
// nothing waits at 1 in flight. A write that carries its signal
// (CreateSignalling, UpdateSignalling) notifies in its own statement, so a
// batch takes the database-wide notify lock once, at its commit. One
// transaction per write and per signal (3.5 a task life at 32 in flight)
// ran 946–1,095 lives a second at 32 in flight, with 483–594 µs of weft's
// CPU each; grouped, 3,450–4,668 and 114–131 µs (BenchmarkPolledTaskLife;
// docs/decisions.md, "Group commit on PostgreSQL").
//
// Each write keeps its own outcome: its statement refuses by returning no
// row (a taken ID, a full quota, a stale version), never by failing, so a
// refusal does not undo the others. A statement that fails all the same
// (a deadlock with another instance's batch, say) rolls the whole batch
// back, and each of its writes is then made again alone.

// maxGroup bounds the writes one batch carries, so that a write queued
// behind a long batch waits for at most that many.
const maxGroup = 256

// groupTimeout bounds a batch of writes that waited, which carries other
// callers' writes and so cannot end with one caller's context.
const groupTimeout = 10 * time.Second

// taskWrite is one caller's creation or update of a task.
type taskWrite struct {
	// query and args are the write's statement, which returns the task's
	// seq when it wrote the row and no row when it refused.
	query string
	args  []any
	// create marks a creation: the batch takes quota's advisory locks
	// (for principal) before it, and deletes tasks that expired before
	// expiredBefore (nil: none) a grace ago.
	create        bool
	quota         tasks.Quota
	principal     string
	expiredBefore any

	// The outcome: whether the row was written, its seq, or the error.
	wrote bool
	seq   int64
	err   error
}

// groupWriter sends a Store's task writes, several in one batch when they
// come together (see groupwrite).
type groupWriter struct {
	pool *pgxpool.Pool
	*groupwrite.Writer[*taskWrite]
}

func newGroupWriter(pool *pgxpool.Pool) *groupWriter {
	g := &groupWriter{pool: pool}
	g.Writer = groupwrite.New(maxGroup, groupTimeout, g.send)
	return g
}

// write makes w, at once if no batch is in flight, else in the batch
// after it, and returns its error. If ctx ends while w is still queued, w
// is dropped and write returns ctx's cause.
func (g *groupWriter) write(ctx context.Context, w *taskWrite) error {
	if err := g.Write(ctx, w); err != nil {
		return err
	}
	return w.err
}

// send makes batch's writes in one transaction and sets each one's
// outcome. When a statement fails in a batch of several, the transaction
// is rolled back and each write is made again alone, so that only the
// write at fault gets the error.
func (g *groupWriter) send(ctx context.Context, batch []*taskWrite) {
	err := g.exec(ctx, batch)
	var pgErr *pgconn.PgError
	if err != nil && len(batch) > 1 && errors.As(err, &pgErr) {
		for _, w := range batch {
			w.wrote = false // the rolled-back batch may have set it
			w.err = g.exec(ctx, []*taskWrite{w})
		}
		return
	}
	if err != nil && len(batch) > 1 {
		err = fmt.Errorf("in a transaction of %d task writes: %w", len(batch), err)
	}
	if err != nil {
		for _, w := range batch {
			w.wrote, w.err = false, err
		}
	}
}

// exec runs batch's writes, after the creations' prelude (their quota
// locks) and then their expiry backstop, as one pgx batch: one implicit
// transaction.
func (g *groupWriter) exec(ctx context.Context, batch []*taskWrite) error {
	b := &pgx.Batch{}
	lockTotal, principals, expiredBefore, creates := false, []string(nil), any(nil), 0
	for _, w := range batch {
		if !w.create {
			continue
		}
		creates++
		lockTotal = lockTotal || w.quota.Total > 0
		if w.quota.PerPrincipal > 0 {
			principals = append(principals, w.principal)
		}
		if expiredBefore == nil {
			expiredBefore = w.expiredBefore
		}
	}
	if creates > 0 {
		b.Queue(creationPrelude, int64(quotaLockTotal), lockTotal, principals, int64(quotaLockPrincipal))
	}
	if expiredBefore != nil {
		b.Queue(dropLongExpired, expiredBefore, int64(2*creates))
	}
	prelude := b.Len()
	for _, w := range batch {
		b.Queue(w.query, w.args...)
	}
	results := g.pool.SendBatch(ctx, b)
	var err error
	for range prelude {
		if _, err = results.Exec(); err != nil {
			break
		}
	}
	for _, w := range batch {
		if err != nil {
			break
		}
		switch err = results.QueryRow().Scan(&w.seq); {
		case err == nil:
			w.wrote = true
		case errors.Is(err, pgx.ErrNoRows):
			err = nil
		}
	}
	if closeErr := results.Close(); err == nil {
		err = closeErr
	}
	return err
}
