package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/weftmcp/weft/tasks"
)

var _ tasks.LeaseRenewer = (*Store)(nil)

// renewLeases extends the leases of an owner's unfinished tasks among a
// JSON array of IDs, as one statement.
const renewLeases = `UPDATE weft_tasks SET lease_expires_at = ?, version = version + 1
WHERE unfinished = 1 AND owner = ? AND id IN (SELECT value FROM json_each(?))
RETURNING id`

// RenewLeases implements tasks.LeaseRenewer, with one statement in one
// write: 10,000 leases in the Runtime's batches of 500 are 20 commits.
func (s *Store) RenewLeases(ctx context.Context, owner string, ids []string, until time.Time) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: renew leases: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	at, err := timeArg(until)
	if err != nil {
		return nil, err
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("sqlite: renew leases: %w", err)
	}
	var renewed []string
	err = s.write(ctx, "renew leases", func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.StmtContext(ctx, s.st.renewLeases).QueryContext(ctx, at, owner, list)
		if err != nil {
			return err
		}
		defer rows.Close()
		renewed = make([]string, 0, len(ids))
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			renewed = append(renewed, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return renewed, nil
}
