package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Expired implements tasks.Store.
func (s *Store) Expired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list expired: %w", err)
	}
	ids, err := due(ctx, s.st.expired, now, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list expired tasks in %s: %w", s.path, err)
	}
	return ids, nil
}

// LeaseExpired implements tasks.Store.
func (s *Store) LeaseExpired(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: list lapsed leases: %w", err)
	}
	ids, err := due(ctx, s.st.leased, now, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: list lapsed leases in %s: %w", s.path, err)
	}
	return ids, nil
}

// due runs a listing for the IDs of tasks whose deadline is not after now.
func due(ctx context.Context, listing *sql.Stmt, now time.Time, limit int) ([]string, error) {
	at, err := timeArg(now)
	if err != nil {
		return nil, err
	}
	rows, err := listing.QueryContext(ctx, at, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
