package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/weftmcp/weft/sessions"
)

// MessageLog is a sessions.MessageLog in the SQLite file of a Store,
// through the Store's connections: the processes sharing the file route
// their legacy sessions' messages through it. An Append is one write
// transaction; it drops the box's messages beyond the newest
// sessions.KeepMessages. Get one with Store.Messages; it is closed with the
// Store.
type MessageLog struct {
	s *Store
}

var _ sessions.MessageLog = (*MessageLog)(nil)

// Messages returns the MessageLog in the Store's file.
func (s *Store) Messages() *MessageLog { return &MessageLog{s: s} }

// Append implements sessions.MessageLog.
func (l *MessageLog) Append(ctx context.Context, session string, box sessions.Box, data []byte) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: append a session message: %w", err)
	}
	var seq uint64
	err := l.sessions().write(ctx, "append a session message", func(ctx context.Context, tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO weft_session_boxes (session, box, last) VALUES (?, ?, 1)
			ON CONFLICT (session, box) DO UPDATE SET last = last + 1 RETURNING last`, session, box).Scan(&seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO weft_session_messages (session, box, seq, data) VALUES (?, ?, ?, ?)`,
			session, box, seq, data); err != nil {
			return err
		}
		if seq > sessions.KeepMessages {
			_, err := tx.ExecContext(ctx, `DELETE FROM weft_session_messages WHERE session = ? AND box = ? AND seq <= ?`,
				session, box, seq-sessions.KeepMessages)
			return err
		}
		return nil
	})
	return seq, err
}

// Read implements sessions.MessageLog.
func (l *MessageLog) Read(ctx context.Context, session string, box sessions.Box, after uint64) ([]sessions.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: read session messages: %w", err)
	}
	rows, err := l.s.r.QueryContext(ctx, `SELECT seq, data FROM weft_session_messages WHERE session = ? AND box = ? AND seq > ? ORDER BY seq`,
		session, box, after)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading the messages of session %s: %w", session, err)
	}
	defer rows.Close()
	var out []sessions.Message
	for rows.Next() {
		var m sessions.Message
		if err := rows.Scan(&m.Seq, &m.Data); err != nil {
			return nil, fmt.Errorf("sqlite: reading the messages of session %s: %w", session, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: reading the messages of session %s: %w", session, err)
	}
	if len(out) > 0 && out[0].Seq != after+1 {
		return nil, fmt.Errorf("%w: message %d of session %s was dropped (the oldest kept is %d)", sessions.ErrTrimmed, after+1, session, out[0].Seq)
	}
	return out, nil
}

// Last implements sessions.MessageLog.
func (l *MessageLog) Last(ctx context.Context, session string, box sessions.Box) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: last session message: %w", err)
	}
	var last uint64
	err := l.s.r.QueryRowContext(ctx, `SELECT last FROM weft_session_boxes WHERE session = ? AND box = ?`, session, box).Scan(&last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("sqlite: reading the newest message of session %s: %w", session, err)
	}
	return last, nil
}

// SetReader implements sessions.MessageLog.
func (l *MessageLog) SetReader(ctx context.Context, session, reader string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: set a session's reader: %w", err)
	}
	return l.sessions().write(ctx, "set a session's reader", func(ctx context.Context, tx *sql.Tx) error {
		if until.IsZero() {
			_, err := tx.ExecContext(ctx, `DELETE FROM weft_session_readers WHERE session = ? AND reader = ?`, session, reader)
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO weft_session_readers (session, reader, until_ns) VALUES (?, ?, ?)
			ON CONFLICT (session) DO UPDATE SET reader = excluded.reader, until_ns = excluded.until_ns`, session, reader, until.UnixNano())
		return err
	})
}

// HasReader implements sessions.MessageLog.
func (l *MessageLog) HasReader(ctx context.Context, session string, now time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("sqlite: has a session a reader: %w", err)
	}
	var n int
	if err := l.s.r.QueryRowContext(ctx, `SELECT count(*) FROM weft_session_readers WHERE session = ? AND until_ns > ?`,
		session, now.UnixNano()).Scan(&n); err != nil {
		return false, fmt.Errorf("sqlite: reading the reader of session %s: %w", session, err)
	}
	return n > 0, nil
}

// Delete implements sessions.MessageLog.
func (l *MessageLog) Delete(ctx context.Context, session string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: delete session messages: %w", err)
	}
	return l.sessions().write(ctx, "delete session messages", func(ctx context.Context, tx *sql.Tx) error {
		for _, table := range []string{"weft_session_boxes", "weft_session_messages", "weft_session_readers"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE session = ?`, session); err != nil {
				return err
			}
		}
		return nil
	})
}

// sessions returns the session store whose write transactions the log uses.
func (l *MessageLog) sessions() *SessionStore { return &SessionStore{s: l.s} }
