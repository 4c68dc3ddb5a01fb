package postgres

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/tasks"
)

// cursors are this store's List cursors: the sequence number of the
// page's last task, after the prefix "p".
const cursors = tasks.SeqCursor("p")

// List implements tasks.Store. Pages follow the order tasks were created
// in; the cursor is the sequence number of the last task returned, which
// no later task reuses, so paging is stable under inserts and deletes.
func (s *Store) List(ctx context.Context, principal, cursor string, limit int) ([]*tasks.Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("postgres: list: %w", err)
	}
	return cursors.Page(cursor, limit, func(after int64, n int) ([]*tasks.Record, []int64, error) {
		recs, seqs, err := queryTasks(ctx, s.pool, selectPage, principal, after, n)
		if err != nil {
			return nil, nil, fmt.Errorf("postgres: list %s's tasks: %w", principal, err)
		}
		return recs, seqs, nil
	})
}
