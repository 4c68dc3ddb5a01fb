package sqlite

// subscribersSchema is the migration that adds the index of a
// SessionStore's subscriptions by URI: a row per live session and URI it
// subscribed to, read a page at a time in session order
// (SessionStore.Subscribers). It is filled from the sessions stored
// before it; a session's expiry deletes its rows.
const subscribersSchema = `
CREATE TABLE weft_session_subscribers (
	uri     TEXT NOT NULL,
	session TEXT NOT NULL REFERENCES weft_sessions (id) ON DELETE CASCADE,
	PRIMARY KEY (uri, session)
) WITHOUT ROWID;
CREATE INDEX weft_session_subscribers_by_session ON weft_session_subscribers (session);

INSERT OR IGNORE INTO weft_session_subscribers (uri, session)
	SELECT j.value, s.id FROM weft_sessions s, json_each(s.subscriptions) j WHERE s.ended = 0;
`
