package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/weftmcp/weft/sessions"
)

// MessageLog is a sessions.MessageLog in the database of a Store, through
// its connection pool: every instance on the database routes its legacy
// sessions' messages through it. Every call is one statement (one round
// trip); an Append numbers the message, stores it and drops the box's
// messages beyond the newest sessions.KeepMessages at once. Get one with
// Store.Messages; it is closed with the Store.
type MessageLog struct {
	pool *pgxpool.Pool
}

var _ sessions.MessageLog = (*MessageLog)(nil)

// Messages returns the MessageLog in the Store's database.
func (s *Store) Messages() *MessageLog { return &MessageLog{pool: s.pool} }

// appendMessage numbers the message by bumping its box's counter (a row
// lock serialises concurrent appends to one box), stores it and drops the
// oldest; the DELETE sees the table as it was before the statement, so it
// never drops the row just inserted.
const appendMessage = `WITH box AS (
	INSERT INTO weft_session_boxes (session, box, last) VALUES ($1, $2, 1)
	ON CONFLICT (session, box) DO UPDATE SET last = weft_session_boxes.last + 1
	RETURNING last
), stored AS (
	INSERT INTO weft_session_messages (session, box, seq, data) SELECT $1, $2, last, $3 FROM box
), dropped AS (
	DELETE FROM weft_session_messages WHERE session = $1 AND box = $2 AND seq <= (SELECT last FROM box) - $4
)
SELECT last FROM box`

// Append implements sessions.MessageLog.
func (l *MessageLog) Append(ctx context.Context, session string, box sessions.Box, data []byte) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("postgres: append a session message: %w", err)
	}
	var seq int64
	if err := l.pool.QueryRow(ctx, appendMessage, session, int16(box), data, int64(sessions.KeepMessages)).Scan(&seq); err != nil {
		return 0, fmt.Errorf("postgres: appending a message of session %s: %w", session, err)
	}
	return uint64(seq), nil
}

// Read implements sessions.MessageLog.
func (l *MessageLog) Read(ctx context.Context, session string, box sessions.Box, after uint64) ([]sessions.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: read session messages: %w", err)
	}
	rows, err := l.pool.Query(ctx, `SELECT seq, data FROM weft_session_messages WHERE session = $1 AND box = $2 AND seq > $3 ORDER BY seq`,
		session, int16(box), int64(after))
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the messages of session %s: %w", session, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (sessions.Message, error) {
		var seq int64
		var m sessions.Message
		err := row.Scan(&seq, &m.Data)
		m.Seq = uint64(seq)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the messages of session %s: %w", session, err)
	}
	if len(out) > 0 && out[0].Seq != after+1 {
		return nil, fmt.Errorf("%w: message %d of session %s was dropped (the oldest kept is %d)", sessions.ErrTrimmed, after+1, session, out[0].Seq)
	}
	return out, nil
}

// Last implements sessions.MessageLog.
func (l *MessageLog) Last(ctx context.Context, session string, box sessions.Box) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("postgres: last session message: %w", err)
	}
	var last int64
	err := l.pool.QueryRow(ctx, `SELECT last FROM weft_session_boxes WHERE session = $1 AND box = $2`, session, int16(box)).Scan(&last)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("postgres: reading the newest message of session %s: %w", session, err)
	}
	return uint64(last), nil
}

// SetReader implements sessions.MessageLog.
func (l *MessageLog) SetReader(ctx context.Context, session, reader string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: set a session's reader: %w", err)
	}
	var err error
	if until.IsZero() {
		_, err = l.pool.Exec(ctx, `DELETE FROM weft_session_readers WHERE session = $1 AND reader = $2`, session, reader)
	} else {
		_, err = l.pool.Exec(ctx, `INSERT INTO weft_session_readers (session, reader, until_ns) VALUES ($1, $2, $3)
			ON CONFLICT (session) DO UPDATE SET reader = excluded.reader, until_ns = excluded.until_ns`, session, reader, until.UnixNano())
	}
	if err != nil {
		return fmt.Errorf("postgres: recording the reader of session %s: %w", session, err)
	}
	return nil
}

// HasReader implements sessions.MessageLog.
func (l *MessageLog) HasReader(ctx context.Context, session string, now time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("postgres: has a session a reader: %w", err)
	}
	var ok bool
	if err := l.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM weft_session_readers WHERE session = $1 AND until_ns > $2)`,
		session, now.UnixNano()).Scan(&ok); err != nil {
		return false, fmt.Errorf("postgres: reading the reader of session %s: %w", session, err)
	}
	return ok, nil
}

// Delete implements sessions.MessageLog.
func (l *MessageLog) Delete(ctx context.Context, session string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: delete session messages: %w", err)
	}
	_, err := l.pool.Exec(ctx, `WITH b AS (DELETE FROM weft_session_boxes WHERE session = $1),
		m AS (DELETE FROM weft_session_messages WHERE session = $1)
		DELETE FROM weft_session_readers WHERE session = $1`, session)
	if err != nil {
		return fmt.Errorf("postgres: deleting the messages of session %s: %w", session, err)
	}
	return nil
}
