package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/weftmcp/weft/tasks"
)

// Writing records: the statements and their arguments.

// insertTaskWithinQuota stores a new task at version 1, unless its ID is
// taken or the total or the principal's unfinished tasks are at their
// quotas (0 for none; given after the insert's arguments): then it returns
// no row. The identity columns come first, then the mutable ones in the
// order mutableArgs gives them, then unfinished. The casts give each
// argument its column's type, which a SELECT does not infer.
const insertTaskWithinQuota = `INSERT INTO weft_tasks (id, principal, method, name, params, policy_rerun, policy_max_runs, created_ns,
	status, status_message, updated_ns, expires_ns, poll_interval_ns,
	result, is_error, error_code, error_message, error_data,
	owner, lease_expires_ns, runs, version, unfinished)
SELECT $1::text, $2::text, $3::text, $4::text, $5::bytea, $6::boolean, $7::integer, $8::bigint,
	$9::text, $10::text, $11::bigint, $12::bigint, $13::bigint,
	$14::bytea, $15::boolean, $16::bigint, $17::text, $18::bytea,
	$19::text, $20::bigint, $21::integer, 1, $22::boolean
WHERE ($23::bigint = 0 OR (SELECT count(*) FROM (SELECT 1 FROM weft_tasks WHERE unfinished LIMIT $23::bigint) q) < $23::bigint)
	AND ($24::bigint = 0 OR (SELECT count(*) FROM (SELECT 1 FROM weft_tasks WHERE principal = $2::text AND unfinished LIMIT $24::bigint) q) < $24::bigint)
ON CONFLICT (id) DO NOTHING
RETURNING seq`

// planOnIndexes, run first in a transaction, has the rest of it planned
// without sequential scans: a batch of creations (in creationPrelude), and
// the counts that explain a refusal. Their quota counts read the partial index of
// unfinished tasks, but a planner without statistics for weft_tasks (a
// new table until autovacuum first analyzes it, a minute or more, or one
// that has grown a lot since) guesses that a sequential scan is cheaper,
// and reads every finished task in the table on every creation: 62% of
// PostgreSQL's CPU in the bench's task rows at 32 in flight (perf), a cost
// that grows with the table. Set for the transaction alone (set_config's
// is_local): a pgx batch is one implicit transaction.
const planOnIndexes = `SELECT set_config('enable_seqscan', 'off', true)`

// creationPrelude opens a batch of creations: it has the rest of the
// transaction planned on indexes, as planOnIndexes does, and takes the
// quotas' advisory locks, the total's ($1, when $2) first, then the
// principals' ($3, hashed with the seed $4) in the order of their keys, as
// every batch and every older Store takes them, so that no two batches
// wait for each other's. It runs before the batch's expiry backstop
// (dropLongExpired): rows the backstop had deleted, and so locked, while
// the batch then waited for a quota lock would deadlock with the lock's
// holder if it wrote one of them, and PostgreSQL would abort the batch.
const creationPrelude = `SELECT set_config('enable_seqscan', 'off', true), count(l) FROM (
	SELECT pg_advisory_xact_lock(k) AS l FROM (
		SELECT 0 AS o, $1::bigint AS k WHERE $2::boolean
		UNION ALL
		SELECT 1, k FROM (SELECT DISTINCT hashtextextended(p, $4::bigint) AS k FROM unnest($3::text[]) AS p) AS d
		ORDER BY o, k) AS keys) AS locked`

// updateTask replaces a task's mutable columns, in the order mutableArgs
// gives them, then version and unfinished; identity columns stay.
const updateTask = `UPDATE weft_tasks SET
	status = $1, status_message = $2, updated_ns = $3, expires_ns = $4, poll_interval_ns = $5,
	result = $6, is_error = $7, error_code = $8, error_message = $9, error_data = $10,
	owner = $11, lease_expires_ns = $12, runs = $13, version = $14, unfinished = $15
WHERE seq = $16`

// updateTaskAt is updateTask, made only if the row is still at the version
// given last; it returns the row's seq when it wrote it, no row otherwise.
const updateTaskAt = updateTask + ` AND version = $17 RETURNING seq`

// The writes that also notify, on the channel and with the payload given
// after the write's own arguments, when they write the task.
var (
	insertTaskNotifying   = notifying(insertTaskWithinQuota, 24)
	updateTaskAtNotifying = notifying(updateTaskAt, 17)
)

// notifying returns write, a statement of n arguments returning the seq
// of the task it wrote (no row when it refused), that also notifies $n+2
// on the channel $n+1 when it writes: the filter is evaluated on each row
// the write returns, so a refusal sends nothing.
func notifying(write string, n int) string {
	return fmt.Sprintf(`WITH w AS (%s) SELECT seq FROM w WHERE pg_notify($%d, $%d) IS NOT NULL`, write, n+1, n+2)
}

// insertArgs returns insertTaskWithinQuota's arguments for rec, before
// the quotas.
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
		rec.Policy.Rerun, rec.Policy.MaxRuns, created}
	args = append(args, mutable...)
	return append(args, !rec.Status.Terminal()), nil
}

// updateArgs returns updateTask's arguments for rec at the new version, in
// the row with sequence number seq.
func updateArgs(rec *tasks.Record, version uint64, seq int64) ([]any, error) {
	args, err := mutableArgs(rec)
	if err != nil {
		return nil, err
	}
	return append(args, int64(version), !rec.Status.Terminal(), seq), nil
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
		errCode, errMsg, errData = e.Code, textArg(e.Message), rawArg(e.Data)
	}
	return []any{string(rec.Status), textArg(rec.StatusMessage), updated, expires, int64(rec.PollInterval),
		rawArg(rec.Result), rec.IsError, errCode, errMsg, errData,
		rec.Owner, lease, rec.Runs}, nil
}

// insertInputs stores inputs as the task's input rows from position first on.
func insertInputs(ctx context.Context, tx pgx.Tx, seq int64, inputs []tasks.Input, first int) error {
	for i, in := range inputs {
		if _, err := tx.Exec(ctx, `INSERT INTO weft_task_inputs (task_seq, pos, key, request, response) VALUES ($1, $2, $3, $4, $5)`,
			seq, first+i, in.Key, rawArg(in.Request), rawArg(in.Response)); err != nil {
			return err
		}
	}
	return nil
}
