package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationLock is the advisory lock key under which the schema is checked
// and migrated ("weftschm" in ASCII).
const migrationLock = 0x7765667473636d

// migrations are the schema's versions in order: migrations[i] takes a
// database from version i to version i+1. Append; never edit a released one.
var migrations = []string{
	// Version 1: tasks and their input requests.
	//
	// seq orders a principal's tasks for List; an identity column never
	// hands a deleted task's number to a new one, so a cursor stays
	// meaningful. Times are nanoseconds since the Unix epoch (NULL for the
	// zero time), which keeps them exact. JSON is kept as the bytes written
	// (bytea, not jsonb, which would reorder members). unfinished is true
	// while the status is working or input_required: the quota counts those
	// rows, and only those rows can hold a lease worth sweeping.
	`
CREATE TABLE weft_tasks (
	seq              bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id               text    NOT NULL UNIQUE,
	principal        text    NOT NULL,
	method           text    NOT NULL,
	name             text    NOT NULL,
	params           bytea,
	policy_rerun     boolean NOT NULL,
	policy_max_runs  integer NOT NULL,
	status           text    NOT NULL,
	status_message   text    NOT NULL,
	created_ns       bigint,
	updated_ns       bigint,
	expires_ns       bigint,
	poll_interval_ns bigint  NOT NULL,
	result           bytea,
	is_error         boolean NOT NULL,
	error_code       bigint,
	error_message    text,
	error_data       bytea,
	owner            text    NOT NULL,
	lease_expires_ns bigint,
	runs             integer NOT NULL,
	version          bigint  NOT NULL,
	unfinished       boolean NOT NULL
);
CREATE INDEX weft_tasks_by_principal ON weft_tasks (principal, seq);
CREATE INDEX weft_tasks_unfinished ON weft_tasks (principal) WHERE unfinished;
CREATE INDEX weft_tasks_by_expiry ON weft_tasks (expires_ns) WHERE expires_ns IS NOT NULL;
CREATE INDEX weft_tasks_by_lease ON weft_tasks (lease_expires_ns)
	WHERE unfinished AND owner <> '' AND lease_expires_ns IS NOT NULL;

CREATE TABLE weft_task_inputs (
	task_seq bigint  NOT NULL REFERENCES weft_tasks (seq) ON DELETE CASCADE,
	pos      integer NOT NULL,
	key      text    NOT NULL,
	request  bytea,
	response bytea,
	PRIMARY KEY (task_seq, pos),
	UNIQUE (task_seq, key)
);
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

// migrate brings the schema to the newest version in one transaction.
func migrate(ctx context.Context, pool *pgxpool.Pool) (err error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: starting the schema check: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("postgres: locking the schema: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS weft_schema (version integer NOT NULL)`); err != nil {
		return fmt.Errorf("postgres: creating the schema version table: %w", err)
	}
	var version int
	switch err := tx.QueryRow(ctx, `SELECT version FROM weft_schema`).Scan(&version); {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := tx.Exec(ctx, `INSERT INTO weft_schema (version) VALUES (0)`); err != nil {
			return fmt.Errorf("postgres: recording the schema version: %w", err)
		}
	case err != nil:
		return fmt.Errorf("postgres: reading the schema version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("postgres: the database has task schema version %d, but this build of weft knows versions up to %d; "+
			"use a newer weft, or another schema (WithSchema)", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.Exec(ctx, migrations[v]); err != nil {
			return fmt.Errorf("postgres: migrating the task schema from version %d to %d: %w", v, v+1, err)
		}
	}
	if version < len(migrations) {
		if _, err := tx.Exec(ctx, `UPDATE weft_schema SET version = $1`, len(migrations)); err != nil {
			return fmt.Errorf("postgres: recording the schema version: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: committing the schema: %w", err)
	}
	return nil
}
