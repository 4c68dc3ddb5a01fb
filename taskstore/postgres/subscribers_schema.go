package postgres

// subscribersSchema is the migration that adds the index of a
// SessionStore's subscriptions by URI: a row per live session and URI it
// subscribed to, read a page at a time in session order
// (SessionStore.Subscribers). It is filled from the sessions stored
// before it; a session's expiry deletes its rows.
const subscribersSchema = `
CREATE TABLE weft_session_subscribers (
	uri     text NOT NULL,
	session text NOT NULL REFERENCES weft_sessions (id) ON DELETE CASCADE,
	PRIMARY KEY (uri, session)
);
CREATE INDEX weft_session_subscribers_by_session ON weft_session_subscribers (session);

INSERT INTO weft_session_subscribers (uri, session)
	SELECT DISTINCT u, s.id FROM weft_sessions s, unnest(s.subscriptions) u WHERE NOT s.ended
	ON CONFLICT DO NOTHING;
`
