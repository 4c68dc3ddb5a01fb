package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
)

// Reading records: one statement joins a task row to its input rows, so a
// record is read from one snapshot without a transaction.

// taskColumns are the task table's columns in the order queryTasks reads them.
const taskColumns = `t.seq, t.id, t.principal, t.method, t.name, t.params, t.policy_rerun, t.policy_max_runs,
	t.status, t.status_message, t.created_ns, t.updated_ns, t.expires_ns, t.poll_interval_ns,
	t.result, t.is_error, t.error_code, t.error_message, t.error_data,
	t.owner, t.lease_expires_ns, t.runs, t.version`

// selectByID reads one task and its inputs by ID.
const selectByID = `SELECT ` + taskColumns + `, i.key, i.request, i.response
FROM weft_tasks t LEFT JOIN weft_task_inputs i ON i.task_seq = t.seq
WHERE t.id = $1 ORDER BY i.pos`

// selectByIDForUpdate reads one task as selectByID does and locks its row
// until the transaction ends.
const selectByIDForUpdate = selectByID + ` FOR UPDATE OF t`

// selectPage reads up to a limit of a principal's tasks after a sequence
// number, in order, with their inputs.
const selectPage = `WITH page AS (
	SELECT * FROM weft_tasks WHERE principal = $1 AND seq > $2 ORDER BY seq LIMIT $3
)
SELECT ` + taskColumns + `, i.key, i.request, i.response
FROM page t LEFT JOIN weft_task_inputs i ON i.task_seq = t.seq
ORDER BY t.seq, i.pos`

// querier runs a query: the pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// queryTasks runs a query selecting taskColumns and an input's key, request
// and response, ordered by task then input, and assembles records, returned
// with their rows' sequence numbers.
func queryTasks(ctx context.Context, q querier, query string, args ...any) (recs []*tasks.Record, seqs []int64, err error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq                       int64
			rec                       tasks.Record
			status                    string
			params, result, errData   []byte
			created, updated, expires *int64
			lease                     *int64
			pollNS, version           int64
			maxRuns, runs             int32
			errCode                   *int64
			errMsg                    *string
			inKey                     *string
			inRequest, inResponse     []byte
		)
		err := rows.Scan(&seq, &rec.ID, &rec.Principal, &rec.Method, &rec.Name, &params, &rec.Policy.Rerun, &maxRuns,
			&status, &rec.StatusMessage, &created, &updated, &expires, &pollNS,
			&result, &rec.IsError, &errCode, &errMsg, &errData,
			&rec.Owner, &lease, &runs, &version,
			&inKey, &inRequest, &inResponse)
		if err != nil {
			return nil, nil, fmt.Errorf("reading a task row: %w", err)
		}
		if n := len(seqs); n == 0 || seqs[n-1] != seq {
			rec.Params, rec.Result = rawFrom(params), rawFrom(result)
			rec.Policy.MaxRuns, rec.Runs = int(maxRuns), int(runs)
			rec.Status = tasks.Status(status)
			rec.CreatedAt, rec.UpdatedAt, rec.ExpiresAt = timeFrom(created), timeFrom(updated), timeFrom(expires)
			rec.LeaseExpiresAt = timeFrom(lease)
			rec.PollInterval = time.Duration(pollNS)
			rec.Version = uint64(version)
			if errCode != nil {
				rec.Error = &jsonrpc.Error{Code: *errCode, Message: deref(errMsg), Data: rawFrom(errData)}
			}
			recs, seqs = append(recs, &rec), append(seqs, seq)
		}
		if inKey != nil {
			last := recs[len(recs)-1]
			last.Inputs = append(last.Inputs, tasks.Input{Key: *inKey, Request: rawFrom(inRequest), Response: rawFrom(inResponse)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading task rows: %w", err)
	}
	return recs, seqs, nil
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
