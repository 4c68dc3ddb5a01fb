package redis

import (
	"context"
	"fmt"
	"strconv"

	"github.com/weftmcp/weft/tasks"
)

// List implements tasks.Store. Pages follow creation order; the cursor is
// the creation number of the last task examined, which no later task
// reuses, so paging is stable under inserts and deletes.
func (s *Store) List(ctx context.Context, principal, cursor string, limit int) ([]*tasks.Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("redis: list: %w", err)
	}
	if limit < 1 {
		return nil, "", fmt.Errorf("redis: list: the page limit must be at least 1, not %d", limit)
	}
	var after int64
	if cursor != "" {
		var ok bool
		if after, ok = cursors.Decode(cursor); !ok {
			return nil, "", tasks.ErrInvalidCursor
		}
	}
	res, err := listScript.Run(ctx, s.client, []string{s.keys.list + principal}, s.keys.task, after, limit).Slice()
	if err != nil {
		return nil, "", fmt.Errorf("redis: list %s's tasks: %w", principal, err)
	}
	if len(res) < 2 || len(res)%2 != 0 {
		return nil, "", fmt.Errorf("redis: list %s's tasks: the script answered %d values, not a page", principal, len(res))
	}
	recs := make([]*tasks.Record, 0, (len(res)-2)/2)
	for i := 2; i < len(res); i += 2 {
		id, _ := res[i].(string)
		flat, _ := res[i+1].([]any)
		rec, _, err := decodeRecord(id, pairs(flat))
		if err != nil {
			return nil, "", err
		}
		recs = append(recs, rec)
	}
	if more, _ := res[0].(int64); more == 0 {
		return recs, "", nil
	}
	last, err := strconv.ParseInt(fmt.Sprint(res[1]), 10, 64)
	if err != nil {
		return nil, "", fmt.Errorf("redis: list %s's tasks: the script answered %v as the last creation number", principal, res[1])
	}
	return recs, cursors.Encode(last), nil
}

// pairs turns a flat field-value array into a map.
func pairs(flat []any) map[string]string {
	m := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		k, _ := flat[i].(string)
		v, _ := flat[i+1].(string)
		m[k] = v
	}
	return m
}

// cursors are this store's List cursors: the sequence number of the
// page's last task, after the prefix "r".
const cursors = tasks.SeqCursor("r")
