package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/weftmcp/weft/tasks"
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

// DeleteExpired implements tasks.Store.
func (s *Store) DeleteExpired(ctx context.Context, now time.Time, limit int) ([]tasks.DeletedTask, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: delete expired: %w", err)
	}
	at, err := timeArg(now)
	if err != nil {
		return nil, err
	}
	var gone []tasks.DeletedTask
	err = s.write(ctx, "delete expired", func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.StmtContext(ctx, s.st.removeExpired).QueryContext(ctx, at, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d tasks.DeletedTask
			if err := rows.Scan(&d.ID, &d.Principal, &d.Method, &d.Name, &d.Status); err != nil {
				return err
			}
			gone = append(gone, d)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}

// dropLongExpired deletes, inside a Create, up to two tasks that expired
// more than the grace before the new task's creation, whatever their
// status: the bound on expired tasks when no Runtime sweeps.
func (s *Store) dropLongExpired(ctx context.Context, tx *sql.Tx, created time.Time) error {
	if created.IsZero() {
		return nil
	}
	at, err := timeArg(created.Add(-s.grace))
	if err != nil {
		return nil // too early in time for anything to have expired a grace ago
	}
	_, err = tx.StmtContext(ctx, s.st.removeLongExpired).ExecContext(ctx, at)
	return err
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
