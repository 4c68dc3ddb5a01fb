package postgres

// messagesSchema is the migration that adds the tables of a MessageLog:
// the number of each box's newest message, the messages kept, and who
// holds each session's GET stream (until a Unix nanosecond).
const messagesSchema = `
CREATE TABLE weft_session_boxes (
	session text     NOT NULL,
	box     smallint NOT NULL,
	last    bigint   NOT NULL,
	PRIMARY KEY (session, box)
);

CREATE TABLE weft_session_messages (
	session text     NOT NULL,
	box     smallint NOT NULL,
	seq     bigint   NOT NULL,
	data    bytea    NOT NULL,
	PRIMARY KEY (session, box, seq)
);

CREATE TABLE weft_session_readers (
	session  text   PRIMARY KEY,
	reader   text   NOT NULL,
	until_ns bigint NOT NULL
);
`
