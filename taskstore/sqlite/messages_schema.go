package sqlite

// messagesSchema is the migration that adds the tables of a MessageLog:
// the number of each box's newest message, the messages kept, and who
// holds each session's GET stream (until a Unix nanosecond).
const messagesSchema = `
CREATE TABLE weft_session_boxes (
	session TEXT    NOT NULL,
	box     INTEGER NOT NULL,
	last    INTEGER NOT NULL,
	PRIMARY KEY (session, box)
) WITHOUT ROWID;

CREATE TABLE weft_session_messages (
	session TEXT    NOT NULL,
	box     INTEGER NOT NULL,
	seq     INTEGER NOT NULL,
	data    BLOB    NOT NULL,
	PRIMARY KEY (session, box, seq)
) WITHOUT ROWID;

CREATE TABLE weft_session_readers (
	session  TEXT    PRIMARY KEY,
	reader   TEXT    NOT NULL,
	until_ns INTEGER NOT NULL
) WITHOUT ROWID;
`
