package postgres

// sessionsSchema is the migration that adds the tables of a SessionStore:
// legacy sessions, and the secrets every instance on the database shares.
// Times are Unix nanoseconds; JSON is kept as the bytes written.
const sessionsSchema = `
CREATE TABLE weft_sessions (
	id            text    PRIMARY KEY,
	principal     text    NOT NULL,
	version       text    NOT NULL,
	capabilities  bytea,
	client_info   bytea,
	level         text    NOT NULL,
	subscriptions text[]  NOT NULL,
	created_ns    bigint  NOT NULL,
	last_seen_ns  bigint  NOT NULL,
	ended         boolean NOT NULL
);
CREATE INDEX weft_sessions_by_last_seen ON weft_sessions (last_seen_ns);

CREATE TABLE weft_secrets (
	name  text  PRIMARY KEY,
	value bytea NOT NULL
);
`
