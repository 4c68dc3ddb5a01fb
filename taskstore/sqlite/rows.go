package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/tasks"
)

// Reading records: one statement joins a task row to its input rows, so a
// record is read from one snapshot of the database without a transaction.

// taskColumns are the task table's columns in the order scanTasks reads them.
const taskColumns = `t.seq, t.id, t.principal, t.method, t.name, t.params, t.policy_rerun, t.policy_max_runs,
	t.status, t.status_message, t.created_at, t.updated_at, t.expires_at, t.poll_interval_ns,
	t.result, t.is_error, t.error_code, t.error_message, t.error_data,
	t.owner, t.lease_expires_at, t.runs, t.version`

// selectByID reads one task and its inputs by ID.
const selectByID = `SELECT ` + taskColumns + `, i.key, i.request, i.response
FROM weft_tasks t LEFT JOIN weft_task_inputs i ON i.task_seq = t.seq
WHERE t.id = ? ORDER BY i.pos`

// selectPage reads up to a limit of a principal's tasks after a sequence
// number, in order, with their inputs.
const selectPage = `WITH page AS (
	SELECT * FROM weft_tasks WHERE principal = ? AND seq > ? ORDER BY seq LIMIT ?
)
SELECT ` + taskColumns + `, i.key, i.request, i.response
FROM page t LEFT JOIN weft_task_inputs i ON i.task_seq = t.seq
ORDER BY t.seq, i.pos`

// queryTasks runs a statement selecting taskColumns and an input's key,
// request and response, ordered by task then input, and assembles records,
// returned with their rows' sequence numbers.
func queryTasks(ctx context.Context, stmt *sql.Stmt, args ...any) (recs []*tasks.Record, seqs []int64, err error) {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq               int64
			rec               tasks.Record
			rerun, isError    int
			errCode           sql.NullInt64
			errMsg            sql.NullString
			inKey             sql.NullString
			errData           json.RawMessage
			inRequest, inResp json.RawMessage
			pollNS            int64
			version           int64
		)
		err := rows.Scan(&seq, &rec.ID, &rec.Principal, &rec.Method, &rec.Name, nullRaw{&rec.Params},
			&rerun, &rec.Policy.MaxRuns,
			&rec.Status, &rec.StatusMessage, nullTime{&rec.CreatedAt}, nullTime{&rec.UpdatedAt}, nullTime{&rec.ExpiresAt}, &pollNS,
			nullRaw{&rec.Result}, &isError, &errCode, &errMsg, nullRaw{&errData},
			&rec.Owner, nullTime{&rec.LeaseExpiresAt}, &rec.Runs, &version,
			&inKey, nullRaw{&inRequest}, nullRaw{&inResp})
		if err != nil {
			return nil, nil, fmt.Errorf("sqlite: reading a task row: %w", err)
		}
		if n := len(seqs); n == 0 || seqs[n-1] != seq {
			rec.Policy.Rerun = rerun != 0
			rec.PollInterval = time.Duration(pollNS)
			rec.IsError = isError != 0
			rec.Version = uint64(version)
			if errCode.Valid {
				rec.Error = &jsonrpc.Error{Code: errCode.Int64, Message: errMsg.String, Data: errData}
			}
			recs, seqs = append(recs, &rec), append(seqs, seq)
		}
		if inKey.Valid {
			last := recs[len(recs)-1]
			last.Inputs = append(last.Inputs, tasks.Input{Key: inKey.String, Request: inRequest, Response: inResp})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("sqlite: reading task rows: %w", err)
	}
	return recs, seqs, nil
}
