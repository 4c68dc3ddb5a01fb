package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/weftmcp/weft/tasks"
)

var _ tasks.Inventory = (*Store)(nil)

// adminCursors are this store's ListAll cursors: the sequence number below
// which the next page starts, after the prefix "pa".
const adminCursors = tasks.SeqCursor("pa")

// ListAll implements tasks.Inventory. A page scans at most
// tasks.InventoryScan rows down from the cursor along the primary key (or,
// with a principal, along the (principal, seq) index) and filters those:
// its cost is bounded whatever the table holds and whatever the filter
// matches.
func (s *Store) ListAll(ctx context.Context, f tasks.Filter, cursor string, limit int) ([]*tasks.Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("postgres: list all: %w", err)
	}
	before, err := adminCursors.Below(cursor, limit)
	if err != nil {
		return nil, "", fmt.Errorf("postgres: list all: %w", err)
	}
	// $1 the principal ('' for all), $2 the cursor, $3 the scan's size.
	scan := `SELECT * FROM weft_tasks WHERE seq < $2 ORDER BY seq DESC LIMIT $3`
	if f.Principal != "" {
		scan = `SELECT * FROM weft_tasks WHERE principal = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`
	}
	// The page and the scan's extent come from one snapshot.
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, "", fmt.Errorf("postgres: list all tasks: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var examined, oldest int64
	err = tx.QueryRow(ctx, `SELECT count(*), coalesce(min(seq), 0) FROM (`+scan+`) s WHERE $1::text IS NOT NULL`,
		f.Principal, before, tasks.InventoryScan).Scan(&examined, &oldest)
	if err != nil {
		return nil, "", fmt.Errorf("postgres: list all tasks: %w", err)
	}
	recs, seqs, err := queryTasks(ctx, tx, `WITH scan AS (`+scan+`),
page AS (SELECT * FROM scan WHERE $1::text IS NOT NULL AND ($4 = '' OR status = $4) AND ($5 = '' OR name = $5) ORDER BY seq DESC LIMIT $6)
SELECT `+taskColumns+`, i.key, i.request, i.response
FROM page t LEFT JOIN weft_task_inputs i ON i.task_seq = t.seq
ORDER BY t.seq DESC, i.pos`, f.Principal, before, tasks.InventoryScan, string(f.Status), f.Name, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("postgres: list all tasks: %w", err)
	}
	recs, next := adminCursors.EndBelow(recs, seqs, limit, examined == tasks.InventoryScan, oldest)
	return recs, next, nil
}

// Totals implements tasks.Inventory with two grouped counts: every row by
// status, and the unfinished ones (the partial index's) by owner.
func (s *Store) Totals(ctx context.Context) (tasks.Totals, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Totals{}, fmt.Errorf("postgres: totals: %w", err)
	}
	t := tasks.Totals{ByStatus: make(map[tasks.Status]int), ByOwner: make(map[string]int)}
	rows, err := s.pool.Query(ctx, `SELECT false, status, count(*) FROM weft_tasks GROUP BY status
UNION ALL SELECT true, owner, count(*) FROM weft_tasks WHERE unfinished GROUP BY owner`)
	if err != nil {
		return tasks.Totals{}, fmt.Errorf("postgres: counting the tasks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			byOwner bool
			key     string
			n       int
		)
		if err := rows.Scan(&byOwner, &key, &n); err != nil {
			return tasks.Totals{}, fmt.Errorf("postgres: counting the tasks: %w", err)
		}
		if byOwner {
			t.ByOwner[key] = n
		} else {
			t.ByStatus[tasks.Status(key)] = n
		}
	}
	if err := rows.Err(); err != nil {
		return tasks.Totals{}, fmt.Errorf("postgres: counting the tasks: %w", err)
	}
	return t, nil
}
