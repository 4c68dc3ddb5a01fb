package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/weftmcp/weft/sessions"
)

// SessionStore is a sessions.Store in the SQLite file of a Store, through
// the Store's connections: the processes sharing the file share their
// legacy sessions. Get one with Store.Sessions; it is closed with the
// Store.
type SessionStore struct {
	s *Store
}

var _ sessions.Store = (*SessionStore)(nil)

// Sessions returns the SessionStore in the Store's file.
func (s *Store) Sessions() *SessionStore { return &SessionStore{s: s} }

// sessionColumns are the columns scanSession reads, in order.
const sessionColumns = `id, principal, version, capabilities, client_info, level, subscriptions, created_ns, last_seen_ns, ended`

// stateKeyName names the request-state key in weft_secrets.
const stateKeyName = "request-state"

// Create implements sessions.Store.
func (ss *SessionStore) Create(ctx context.Context, rec *sessions.Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: create session: %w", err)
	}
	subs, err := json.Marshal(nonNil(rec.Subscriptions))
	if err != nil {
		return err
	}
	return ss.write(ctx, "create session", func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO weft_sessions (`+sessionColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT (id) DO NOTHING`,
			rec.ID, rec.Principal, rec.Version, []byte(rec.Capabilities), []byte(rec.ClientInfo), rec.Level, string(subs),
			rec.CreatedAt.UnixNano(), rec.LastSeen.UnixNano())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("%w: %s", sessions.ErrExists, rec.ID)
		}
		for _, uri := range rec.Subscriptions {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO weft_session_subscribers (uri, session) VALUES (?, ?)`, uri, rec.ID); err != nil {
				return err
			}
		}
		return nil
	})
}

// Get implements sessions.Store.
func (ss *SessionStore) Get(ctx context.Context, id string) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: get session: %w", err)
	}
	return ss.read(ctx, ss.s.r, id)
}

// queryer is a *sql.DB or a *sql.Tx.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// read reads the session through q.
func (ss *SessionStore) read(ctx context.Context, q queryer, id string) (*sessions.Record, error) {
	var (
		rec           sessions.Record
		subs          string
		created, seen int64
		ended         int
		caps, client  []byte
	)
	err := q.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM weft_sessions WHERE id = ?`, id).Scan(
		&rec.ID, &rec.Principal, &rec.Version, &caps, &client, &rec.Level, &subs, &created, &seen, &ended)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, sessions.ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("sqlite: get session %s from %s: %w", id, ss.s.path, err)
	}
	if err := json.Unmarshal([]byte(subs), &rec.Subscriptions); err != nil {
		return nil, fmt.Errorf("sqlite: session %s in %s has unreadable subscriptions: %w", id, ss.s.path, err)
	}
	rec.Capabilities, rec.ClientInfo = caps, client
	rec.CreatedAt, rec.LastSeen, rec.Ended = time.Unix(0, created), time.Unix(0, seen), ended != 0
	return &rec, nil
}

// Touch implements sessions.Store. It reads without the write lock and
// writes only when LastSeen is stale.
func (ss *SessionStore) Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: touch session: %w", err)
	}
	rec, err := ss.read(ctx, ss.s.r, id)
	if err != nil || rec.Ended || !rec.LastSeen.Before(now.Add(-every)) {
		return rec, err
	}
	err = ss.write(ctx, "touch session", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE weft_sessions SET last_seen_ns = ? WHERE id = ? AND ended = 0 AND last_seen_ns < ?`,
			now.UnixNano(), id, now.Add(-every).UnixNano())
		if err != nil {
			return err
		}
		rec, err = ss.read(ctx, tx, id)
		return err
	})
	return rec, err
}

// SetLevel implements sessions.Store.
func (ss *SessionStore) SetLevel(ctx context.Context, id, level string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, "set the log level of session", id, now, "", func(rec *sessions.Record) { rec.Level = level })
}

// Subscribe implements sessions.Store: the session's record and the index
// by URI change in one transaction.
func (ss *SessionStore) Subscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, "subscribe session", id, now, `INSERT OR IGNORE INTO weft_session_subscribers (uri, session) VALUES (?, ?)`,
		func(rec *sessions.Record) {
			if !slices.Contains(rec.Subscriptions, uri) {
				rec.Subscriptions = append(rec.Subscriptions, uri)
			}
		}, uri, id)
}

// Unsubscribe implements sessions.Store, as Subscribe does.
func (ss *SessionStore) Unsubscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, "unsubscribe session", id, now, `DELETE FROM weft_session_subscribers WHERE uri = ? AND session = ?`,
		func(rec *sessions.Record) {
			rec.Subscriptions = slices.DeleteFunc(rec.Subscriptions, func(u string) bool { return u == uri })
		}, uri, id)
}

// change applies fn to the live session inside a write transaction, which
// holds the file's write lock from its start, moves its LastSeen to now
// unless later, runs index with args there unless index is "", and
// returns the session as changed.
func (ss *SessionStore) change(ctx context.Context, op, id string, now time.Time, index string, fn func(*sessions.Record), args ...any) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", op, err)
	}
	var changed *sessions.Record
	err := ss.write(ctx, op, func(ctx context.Context, tx *sql.Tx) error {
		rec, err := ss.read(ctx, tx, id)
		if err != nil {
			return err
		}
		if rec.Ended {
			return sessions.ErrNotFound
		}
		fn(rec)
		if now.After(rec.LastSeen) {
			rec.LastSeen = now
		}
		subs, err := json.Marshal(nonNil(rec.Subscriptions))
		if err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `UPDATE weft_sessions SET level = ?, subscriptions = ?, last_seen_ns = ? WHERE id = ?`,
			rec.Level, string(subs), rec.LastSeen.UnixNano(), id); err != nil {
			return err
		}
		if index != "" {
			_, err = tx.ExecContext(ctx, index, args...)
		}
		changed = rec
		return err
	})
	if err != nil {
		return nil, err
	}
	return changed, nil
}

// End implements sessions.Store.
func (ss *SessionStore) End(ctx context.Context, id, principal string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: end session: %w", err)
	}
	return ss.write(ctx, "end session", func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE weft_sessions SET ended = 1, last_seen_ns = ? WHERE id = ? AND ended = 0 AND principal = ?`,
			sessions.EndedLastSeen.UnixNano(), id, principal)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return sessions.ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM weft_session_subscribers WHERE session = ?`, id)
		return err
	})
}

// Subscribers implements sessions.Store: one indexed range read.
func (ss *SessionStore) Subscribers(ctx context.Context, uri, after string, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: subscribers: %w", err)
	}
	rows, err := ss.s.r.QueryContext(ctx, `SELECT session FROM weft_session_subscribers WHERE uri = ? AND session > ? ORDER BY session LIMIT ?`,
		uri, after, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading the subscribers of %s from %s: %w", uri, ss.s.path, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: reading the subscribers of %s from %s: %w", uri, ss.s.path, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: reading the subscribers of %s from %s: %w", uri, ss.s.path, err)
	}
	return ids, nil
}

// Expire implements sessions.Store.
func (ss *SessionStore) Expire(ctx context.Context, idleBefore time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: expire sessions: %w", err)
	}
	var ids []string
	err := ss.write(ctx, "expire sessions", func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `DELETE FROM weft_sessions WHERE id IN
			(SELECT id FROM weft_sessions WHERE last_seen_ns < ? LIMIT ?) RETURNING id`, idleBefore.UnixNano(), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	return ids, err
}

// StateKey implements sessions.Store.
func (ss *SessionStore) StateKey(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: state key: %w", err)
	}
	var key []byte
	err := ss.s.r.QueryRowContext(ctx, `SELECT value FROM weft_secrets WHERE name = ?`, stateKeyName).Scan(&key)
	if err == nil {
		return key, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: reading the state key from %s: %w", ss.s.path, err)
	}
	err = ss.write(ctx, "make the state key", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO weft_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`,
			stateKeyName, sessions.NewKey()); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM weft_secrets WHERE name = ?`, stateKeyName).Scan(&key)
	})
	return key, err
}

// write runs fn in a write transaction of the Store; the session store's
// own errors come back as they are.
func (ss *SessionStore) write(ctx context.Context, op string, fn writeFunc) error {
	return ss.s.w.do(ctx, op, ss.s.sync, isSessionRuleError, fn)
}

// isSessionRuleError tells the errors of the session rules, which callers
// test for.
func isSessionRuleError(err error) bool {
	return errors.Is(err, sessions.ErrNotFound) || errors.Is(err, sessions.ErrExists)
}

// nonNil returns subs, or an empty list for nil, which encodes as [].
func nonNil(subs []string) []string {
	if subs == nil {
		return []string{}
	}
	return subs
}
