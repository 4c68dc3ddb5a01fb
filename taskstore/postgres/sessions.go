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

// SessionStore is a sessions.Store in the database of a Store, through
// its connection pool: every instance on the database serves the legacy
// sessions of the others. Every call but the first StateKey is one
// statement (one round trip). Get one with Store.Sessions; it is closed
// with the Store.
type SessionStore struct {
	pool *pgxpool.Pool
}

var _ sessions.Store = (*SessionStore)(nil)

// Sessions returns the SessionStore in the Store's database.
func (s *Store) Sessions() *SessionStore { return &SessionStore{pool: s.pool} }

// sessionColumns are the columns scanSession reads, in order.
const sessionColumns = `id, principal, version, capabilities, client_info, level, subscriptions, created_ns, last_seen_ns, ended`

// stateKeyName names the request-state key in weft_secrets.
const stateKeyName = "request-state"

// Create implements sessions.Store.
func (ss *SessionStore) Create(ctx context.Context, rec *sessions.Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: create session: %w", err)
	}
	subs := rec.Subscriptions
	if subs == nil {
		subs = []string{}
	}
	// The session and its subscriptions by URI, in one statement.
	var created int
	err := ss.pool.QueryRow(ctx, `WITH created AS (
		INSERT INTO weft_sessions (`+sessionColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, false) ON CONFLICT (id) DO NOTHING RETURNING id
	), indexed AS (
		INSERT INTO weft_session_subscribers (uri, session) SELECT DISTINCT u, id FROM created, unnest($7::text[]) u
	)
	SELECT count(*) FROM created`,
		rec.ID, rec.Principal, rec.Version, []byte(rec.Capabilities), []byte(rec.ClientInfo), rec.Level, subs,
		rec.CreatedAt.UnixNano(), rec.LastSeen.UnixNano()).Scan(&created)
	if err != nil {
		return fmt.Errorf("postgres: create session %s: %w", rec.ID, err)
	}
	if created == 0 {
		return fmt.Errorf("%w: %s", sessions.ErrExists, rec.ID)
	}
	return nil
}

// Get implements sessions.Store.
func (ss *SessionStore) Get(ctx context.Context, id string) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: get session: %w", err)
	}
	return scanSession(id, ss.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM weft_sessions WHERE id = $1`, id))
}

// Touch implements sessions.Store: one statement that reads the session
// and, when it is live and stale, moves LastSeen (the outer query reads the
// row as it was before, so it takes the new time from the update).
func (ss *SessionStore) Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: touch session: %w", err)
	}
	return scanSession(id, ss.pool.QueryRow(ctx, `WITH touched AS (
		UPDATE weft_sessions SET last_seen_ns = $2 WHERE id = $1 AND NOT ended AND last_seen_ns < $3 RETURNING last_seen_ns
	)
	SELECT id, principal, version, capabilities, client_info, level, subscriptions, created_ns,
		COALESCE((SELECT last_seen_ns FROM touched), last_seen_ns), ended
	FROM weft_sessions WHERE id = $1`, id, now.UnixNano(), now.Add(-every).UnixNano()))
}

// scanSession reads a row of sessionColumns.
func scanSession(id string, row pgx.Row) (*sessions.Record, error) {
	var (
		rec           sessions.Record
		created, seen int64
		caps, client  []byte
	)
	err := row.Scan(&rec.ID, &rec.Principal, &rec.Version, &caps, &client, &rec.Level, &rec.Subscriptions, &created, &seen, &rec.Ended)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, sessions.ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("postgres: read session %s: %w", id, err)
	}
	rec.Capabilities, rec.ClientInfo = caps, client
	rec.CreatedAt, rec.LastSeen = time.Unix(0, created), time.Unix(0, seen)
	return &rec, nil
}

// SetLevel implements sessions.Store.
func (ss *SessionStore) SetLevel(ctx context.Context, id, level string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, "set the log level of", id, `level = $2`, "", level, now)
}

// Subscribe implements sessions.Store: the session's record and the index
// by URI change in one statement.
func (ss *SessionStore) Subscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, "subscribe", id,
		`subscriptions = CASE WHEN $2 = ANY (subscriptions) THEN subscriptions ELSE array_append(subscriptions, $2::text) END`,
		`INSERT INTO weft_session_subscribers (uri, session) SELECT $2, id FROM changed ON CONFLICT DO NOTHING`, uri, now)
}

// Unsubscribe implements sessions.Store, as Subscribe does.
func (ss *SessionStore) Unsubscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, "unsubscribe", id, `subscriptions = array_remove(subscriptions, $2::text)`,
		`DELETE FROM weft_session_subscribers WHERE uri = $2 AND session IN (SELECT id FROM changed)`, uri, now)
}

// change updates a live session with set, whose $2 is value, moves its
// LastSeen to now unless later, and returns it as changed; unless index
// is "", it runs index in the same statement, where "changed" holds the
// session changed, if any.
func (ss *SessionStore) change(ctx context.Context, op, id, set, index, value string, now time.Time) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: %s session: %w", op, err)
	}
	q := `WITH changed AS (UPDATE weft_sessions SET ` + set + `, last_seen_ns = GREATEST(last_seen_ns, $3)
		WHERE id = $1 AND NOT ended RETURNING ` + sessionColumns + `)`
	if index != "" {
		q += `, indexed AS (` + index + `)`
	}
	rec, err := scanSession(id, ss.pool.QueryRow(ctx, q+` SELECT `+sessionColumns+` FROM changed`, id, value, now.UnixNano()))
	if err != nil && !errors.Is(err, sessions.ErrNotFound) {
		return nil, fmt.Errorf("postgres: %s session %s: %w", op, id, err)
	}
	return rec, err
}

// End implements sessions.Store.
func (ss *SessionStore) End(ctx context.Context, id, principal string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: end session: %w", err)
	}
	// A Subscribe committed while this waited for the session's row may
	// leave a row the delete does not see: Subscribers skips ended
	// sessions, and the session's expiry deletes it.
	var n int
	err := ss.pool.QueryRow(ctx, `WITH ended AS (
		UPDATE weft_sessions SET ended = true, last_seen_ns = $3 WHERE id = $1 AND NOT ended AND principal = $2 RETURNING id
	), unindexed AS (
		DELETE FROM weft_session_subscribers WHERE session IN (SELECT id FROM ended)
	)
	SELECT count(*) FROM ended`, id, principal, sessions.EndedLastSeen.UnixNano()).Scan(&n)
	if err != nil {
		return fmt.Errorf("postgres: end session %s: %w", id, err)
	}
	if n == 0 {
		return sessions.ErrNotFound
	}
	return nil
}

// Subscribers implements sessions.Store: one indexed range read, which
// skips the sessions that ended.
func (ss *SessionStore) Subscribers(ctx context.Context, uri, after string, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: subscribers: %w", err)
	}
	rows, err := ss.pool.Query(ctx, `SELECT x.session FROM weft_session_subscribers x JOIN weft_sessions s ON s.id = x.session
		WHERE x.uri = $1 AND x.session > $2 AND NOT s.ended ORDER BY x.session LIMIT $3`, uri, after, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the subscribers of %s: %w", uri, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the subscribers of %s: %w", uri, err)
	}
	return ids, nil
}

// Expire implements sessions.Store.
func (ss *SessionStore) Expire(ctx context.Context, idleBefore time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: expire sessions: %w", err)
	}
	// Longest idle first, which also makes the index of last use the plan
	// even on a table never analyzed (a new deployment's): without the
	// ORDER BY, PostgreSQL read the whole table on every sweep there
	// (TestExpirySweepReadsTheIndexWithoutStatistics).
	rows, err := ss.pool.Query(ctx, `DELETE FROM weft_sessions WHERE id IN (
		SELECT id FROM weft_sessions WHERE last_seen_ns < $1 ORDER BY last_seen_ns LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING id`,
		idleBefore.UnixNano(), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: expire sessions: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: expire sessions: %w", err)
	}
	return ids, nil
}

// StateKey implements sessions.Store.
func (ss *SessionStore) StateKey(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: state key: %w", err)
	}
	const read = `SELECT value FROM weft_secrets WHERE name = $1`
	var key []byte
	err := ss.pool.QueryRow(ctx, read, stateKeyName).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) {
		// Another instance may insert at once: the insert that loses does
		// nothing, and the read after it, a statement of its own, sees the
		// winner's key.
		if _, err := ss.pool.Exec(ctx, `INSERT INTO weft_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
			stateKeyName, sessions.NewKey()); err != nil {
			return nil, fmt.Errorf("postgres: storing the state key: %w", err)
		}
		err = ss.pool.QueryRow(ctx, read, stateKeyName).Scan(&key)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: reading the state key: %w", err)
	}
	return key, nil
}
