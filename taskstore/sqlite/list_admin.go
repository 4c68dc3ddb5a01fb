package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/weftmcp/weft/tasks"
)

var _ tasks.Inventory = (*Store)(nil)

// adminCursors are this store's ListAll cursors: the sequence number below
// which the next page starts, after the prefix "qa".
const adminCursors = tasks.SeqCursor("qa")

// ListAll implements tasks.Inventory. A page scans at most
// tasks.InventoryScan rows down from the cursor along the primary key (or,
// with a principal, along the (principal, seq) index) and filters those:
// its cost is bounded whatever the table holds and whatever the filter
// matches.
func (s *Store) ListAll(ctx context.Context, f tasks.Filter, cursor string, limit int) ([]*tasks.Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("sqlite: list all: %w", err)
	}
	before, err := adminCursors.Below(cursor, limit)
	if err != nil {
		return nil, "", fmt.Errorf("sqlite: list all: %w", err)
	}
	scan, scanArgs := `SELECT * FROM weft_tasks WHERE seq < ? ORDER BY seq DESC LIMIT ?`, []any{before, tasks.InventoryScan}
	if f.Principal != "" {
		scan, scanArgs = `SELECT * FROM weft_tasks WHERE principal = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
			[]any{f.Principal, before, tasks.InventoryScan}
	}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // the page and the scan's extent from one snapshot
	if err != nil {
		return nil, "", fmt.Errorf("sqlite: list all tasks in %s: %w", s.path, err)
	}
	defer tx.Rollback()
	var examined, oldest int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(min(seq), 0) FROM (`+scan+`)`, scanArgs...).Scan(&examined, &oldest); err != nil {
		return nil, "", fmt.Errorf("sqlite: list all tasks in %s: %w", s.path, err)
	}
	stmt, err := tx.PrepareContext(ctx, `WITH scan AS (`+scan+`),
page AS (SELECT * FROM scan WHERE (? = '' OR status = ?) AND (? = '' OR name = ?) ORDER BY seq DESC LIMIT ?)
SELECT `+taskColumns+`, i.key, i.request, i.response
FROM page t LEFT JOIN weft_task_inputs i ON i.task_seq = t.seq
ORDER BY t.seq DESC, i.pos`)
	if err != nil {
		return nil, "", fmt.Errorf("sqlite: list all tasks in %s: %w", s.path, err)
	}
	defer stmt.Close()
	args := append(scanArgs, string(f.Status), string(f.Status), f.Name, f.Name, limit+1)
	recs, seqs, err := queryTasks(ctx, stmt, args...)
	if err != nil {
		return nil, "", fmt.Errorf("sqlite: list all tasks in %s: %w", s.path, err)
	}
	recs, next := adminCursors.EndBelow(recs, seqs, limit, examined == tasks.InventoryScan, oldest)
	return recs, next, nil
}

// Totals implements tasks.Inventory with two grouped counts: every row by
// status, and the unfinished ones (the partial index's) by owner.
func (s *Store) Totals(ctx context.Context) (tasks.Totals, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Totals{}, fmt.Errorf("sqlite: totals: %w", err)
	}
	t := tasks.Totals{ByStatus: make(map[tasks.Status]int), ByOwner: make(map[string]int)}
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return tasks.Totals{}, fmt.Errorf("sqlite: counting the tasks in %s: %w", s.path, err)
	}
	defer tx.Rollback()
	if err := countInto(ctx, tx, `SELECT status, count(*) FROM weft_tasks GROUP BY status`, func(k string, n int) {
		t.ByStatus[tasks.Status(k)] = n
	}); err != nil {
		return tasks.Totals{}, fmt.Errorf("sqlite: counting the tasks in %s by status: %w", s.path, err)
	}
	if err := countInto(ctx, tx, `SELECT owner, count(*) FROM weft_tasks WHERE unfinished = 1 GROUP BY owner`, func(k string, n int) {
		t.ByOwner[k] = n
	}); err != nil {
		return tasks.Totals{}, fmt.Errorf("sqlite: counting the unfinished tasks in %s by owner: %w", s.path, err)
	}
	return t, nil
}

// countInto runs a query of (key, count) rows, handing each to add.
func countInto(ctx context.Context, tx *sql.Tx, query string, add func(key string, n int)) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			k string
			n int
		)
		if err := rows.Scan(&k, &n); err != nil {
			return err
		}
		add(k, n)
	}
	return rows.Err()
}
