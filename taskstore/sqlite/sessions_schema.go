package sqlite

// sessionsSchema is the migration that adds the tables of a SessionStore:
// legacy sessions, and the secrets every instance on the file shares.
// Times are Unix nanoseconds; subscriptions a JSON array of URIs.
const sessionsSchema = `
CREATE TABLE weft_sessions (
	id            TEXT    PRIMARY KEY,
	principal     TEXT    NOT NULL,
	version       TEXT    NOT NULL,
	capabilities  BLOB,
	client_info   BLOB,
	level         TEXT    NOT NULL,
	subscriptions TEXT    NOT NULL,
	created_ns    INTEGER NOT NULL,
	last_seen_ns  INTEGER NOT NULL,
	ended         INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX weft_sessions_by_last_seen ON weft_sessions (last_seen_ns);

CREATE TABLE weft_secrets (
	name  TEXT PRIMARY KEY,
	value BLOB NOT NULL
) WITHOUT ROWID;
`
