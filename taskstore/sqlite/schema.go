package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations are the schema's versions in order: migrations[i] takes a
// database from version i to version i+1. Append; never edit a released one.
var migrations = []string{
	// Version 1: tasks, their input requests, and the polling bus's signals.
	//
	// seq orders a principal's tasks for List; AUTOINCREMENT never hands a
	// deleted task's number to a new one, so a cursor stays meaningful.
	// Times are UTC text with nine fractional digits (see formatTime), whose
	// order is the order of the instants. unfinished is 1 while the status
	// is working or input_required: the quota counts those rows, and only
	// those rows can hold a lease worth sweeping.
	`
CREATE TABLE weft_tasks (
	seq              INTEGER PRIMARY KEY AUTOINCREMENT,
	id               TEXT    NOT NULL UNIQUE,
	principal        TEXT    NOT NULL,
	method           TEXT    NOT NULL,
	name             TEXT    NOT NULL,
	params           BLOB,
	policy_rerun     INTEGER NOT NULL,
	policy_max_runs  INTEGER NOT NULL,
	status           TEXT    NOT NULL,
	status_message   TEXT    NOT NULL,
	created_at       TEXT,
	updated_at       TEXT,
	expires_at       TEXT,
	poll_interval_ns INTEGER NOT NULL,
	result           BLOB,
	is_error         INTEGER NOT NULL,
	error_code       INTEGER,
	error_message    TEXT,
	error_data       BLOB,
	owner            TEXT    NOT NULL,
	lease_expires_at TEXT,
	runs             INTEGER NOT NULL,
	version          INTEGER NOT NULL,
	unfinished       INTEGER NOT NULL
);
CREATE INDEX weft_tasks_by_principal ON weft_tasks (principal, seq);
CREATE INDEX weft_tasks_unfinished ON weft_tasks (principal) WHERE unfinished = 1;
CREATE INDEX weft_tasks_by_expiry ON weft_tasks (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX weft_tasks_by_lease ON weft_tasks (lease_expires_at)
	WHERE unfinished = 1 AND owner <> '' AND lease_expires_at IS NOT NULL;

CREATE TABLE weft_task_inputs (
	task_seq INTEGER NOT NULL REFERENCES weft_tasks (seq) ON DELETE CASCADE,
	pos      INTEGER NOT NULL,
	key      TEXT    NOT NULL,
	request  BLOB,
	response BLOB,
	PRIMARY KEY (task_seq, pos),
	UNIQUE (task_seq, key)
) WITHOUT ROWID;

CREATE TABLE weft_signals (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	origin       TEXT    NOT NULL,
	task_id      TEXT    NOT NULL,
	kind         TEXT    NOT NULL,
	published_ms INTEGER NOT NULL
);
CREATE INDEX weft_signals_by_time ON weft_signals (published_ms);
`,
	// Version 2: legacy sessions (see SessionStore).
	sessionsSchema,
	// Version 3: messages between the instances serving a legacy session
	// (see MessageLog).
	messagesSchema,
	// Version 4: legacy sessions' subscriptions by URI (see
	// SessionStore.Subscribers).
	subscribersSchema,
}

// migrate brings the schema to the newest version in one write
// transaction, so processes opening the file at once migrate it once.
func migrate(ctx context.Context, db *sql.DB, path string) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: opening %s: starting the schema check: %w", path, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS weft_schema (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("sqlite: opening %s: creating the schema version table: %w", path, err)
	}
	var version int
	switch err := tx.QueryRowContext(ctx, `SELECT version FROM weft_schema`).Scan(&version); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO weft_schema (version) VALUES (0)`); err != nil {
			return fmt.Errorf("sqlite: opening %s: recording the schema version: %w", path, err)
		}
	case err != nil:
		return fmt.Errorf("sqlite: opening %s: reading the schema version: %w", path, err)
	}
	if version > len(migrations) {
		return fmt.Errorf("sqlite: %s has task schema version %d, but this build of weft knows versions up to %d; "+
			"open it with a newer weft, or use another file", path, version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("sqlite: opening %s: migrating the task schema from version %d to %d: %w", path, v, v+1, err)
		}
	}
	if version < len(migrations) {
		if _, err := tx.ExecContext(ctx, `UPDATE weft_schema SET version = ?`, len(migrations)); err != nil {
			return fmt.Errorf("sqlite: opening %s: recording the schema version: %w", path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: opening %s: committing the schema: %w", path, err)
	}
	return nil
}
