package sqlite

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/tasks"
)

// List implements tasks.Store. Pages follow the order tasks were created
// in; the cursor is the sequence number of the last task returned, which
// no later task reuses, so paging is stable under inserts and deletes.
func (s *Store) List(ctx context.Context, principal, cursor string, limit int) ([]*tasks.Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("sqlite: list: %w", err)
	}
	if limit < 1 {
		return nil, "", fmt.Errorf("sqlite: list: the page limit must be at least 1, not %d", limit)
	}
	var after int64
	if cursor != "" {
		var ok bool
		if after, ok = cursors.Decode(cursor); !ok {
			return nil, "", tasks.ErrInvalidCursor
		}
	}
	// One row more than the page tells whether another page follows.
	found, err := queryTasks(ctx, s.st.page, principal, after, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("sqlite: list tasks in %s: %w", s.path, err)
	}
	more := len(found) > limit
	if more {
		found = found[:limit]
	}
	recs := make([]*tasks.Record, len(found))
	for i, f := range found {
		recs[i] = f.rec
	}
	if !more {
		return recs, "", nil
	}
	return recs, cursors.Encode(found[len(found)-1].seq), nil
}

// cursors are this store's List cursors: the sequence number of the
// page's last task, after the prefix "q".
const cursors = tasks.SeqCursor("q")
