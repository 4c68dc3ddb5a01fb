package sqlite

import (
	"context"
	"database/sql"

	"github.com/weftmcp/weft/tasks"
)

// Writing records: the statements and their arguments.

// insertTask stores a new task at version 1: the identity columns, then the
// mutable ones in the order mutableArgs gives them, then unfinished.
const insertTask = `INSERT INTO weft_tasks (id, principal, method, name, params, policy_rerun, policy_max_runs, created_at,
	status, status_message, updated_at, expires_at, poll_interval_ns,
	result, is_error, error_code, error_message, error_data,
	owner, lease_expires_at, runs, version, unfinished)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`

// updateTask replaces a task's mutable columns, in the order mutableArgs
// gives them, then version and unfinished; identity columns stay.
const updateTask = `UPDATE weft_tasks SET
	status = ?, status_message = ?, updated_at = ?, expires_at = ?, poll_interval_ns = ?,
	result = ?, is_error = ?, error_code = ?, error_message = ?, error_data = ?,
	owner = ?, lease_expires_at = ?, runs = ?, version = ?, unfinished = ?
WHERE seq = ?`

// insertArgs returns insertTask's arguments for rec.
func insertArgs(rec *tasks.Record) ([]any, error) {
	created, err := timeArg(rec.CreatedAt)
	if err != nil {
		return nil, err
	}
	mutable, err := mutableArgs(rec)
	if err != nil {
		return nil, err
	}
	args := []any{rec.ID, rec.Principal, rec.Method, rec.Name, rawArg(rec.Params),
		boolArg(rec.Policy.Rerun), rec.Policy.MaxRuns, created}
	args = append(args, mutable...)
	return append(args, boolArg(!rec.Status.Terminal())), nil
}

// updateArgs returns updateTask's arguments for rec at the new version, in
// the row with sequence number seq.
func updateArgs(rec *tasks.Record, version uint64, seq int64) ([]any, error) {
	args, err := mutableArgs(rec)
	if err != nil {
		return nil, err
	}
	return append(args, int64(version), boolArg(!rec.Status.Terminal()), seq), nil
}

// mutableArgs returns the values of the mutable columns from status to runs.
func mutableArgs(rec *tasks.Record) ([]any, error) {
	updated, err := timeArg(rec.UpdatedAt)
	if err != nil {
		return nil, err
	}
	expires, err := timeArg(rec.ExpiresAt)
	if err != nil {
		return nil, err
	}
	lease, err := timeArg(rec.LeaseExpiresAt)
	if err != nil {
		return nil, err
	}
	var errCode, errMsg, errData any
	if e := rec.Error; e != nil {
		errCode, errMsg, errData = e.Code, e.Message, rawArg(e.Data)
	}
	return []any{rec.Status, rec.StatusMessage, updated, expires, int64(rec.PollInterval),
		rawArg(rec.Result), boolArg(rec.IsError), errCode, errMsg, errData,
		rec.Owner, lease, rec.Runs}, nil
}

// insertInputs stores inputs as the task's input rows from position first on.
func (s *Store) insertInputs(ctx context.Context, tx *sql.Tx, seq int64, inputs []tasks.Input, first int) error {
	if len(inputs) == 0 {
		return nil
	}
	stmt := tx.StmtContext(ctx, s.st.addInput)
	for i, in := range inputs {
		if _, err := stmt.ExecContext(ctx, seq, first+i, in.Key, rawArg(in.Request), rawArg(in.Response)); err != nil {
			return err
		}
	}
	return nil
}
