package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/sessions"
)

// SessionStore is a sessions.Store in the Redis of a Store, under its
// prefix: every instance on that Redis and prefix serves the legacy
// sessions of the others. Every call is one round trip (a script). Get one
// with Store.Sessions.
type SessionStore struct {
	client redis.UniversalClient
	keys   keys
	tokens *writeTokens // the Store's: names the kept replies of its calls
}

var _ sessions.Store = (*SessionStore)(nil)

// Sessions returns the SessionStore on the Store's client and prefix.
func (s *Store) Sessions() *SessionStore {
	return &SessionStore{client: s.client, keys: s.keys, tokens: s.tokens}
}

// sessionKeys are the keys of the session's hash and subscriptions, and of
// the sessions sorted set.
func (ss *SessionStore) sessionKeys(id string) []string {
	return []string{ss.keys.session + id, ss.keys.session + id + ":subs", ss.keys.sessions}
}

// Create implements sessions.Store.
func (ss *SessionStore) Create(ctx context.Context, rec *sessions.Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: create session: %w", err)
	}
	fields := []any{
		"principal", rec.Principal, "version", rec.Version, "caps", string(rec.Capabilities), "client", string(rec.ClientInfo),
		"level", rec.Level, "created", nanos(rec.CreatedAt), "seen", nanos(rec.LastSeen), "ended", "0",
	}
	args := append([]any{rec.ID, rec.LastSeen.UnixMilli(), ss.keys.subscribers, len(fields) / 2}, fields...)
	for _, uri := range rec.Subscriptions {
		args = append(args, uri)
	}
	keys := append(ss.sessionKeys(rec.ID), ss.keys.reply+ss.tokens.next())
	n, err := createSessionScript.Run(ctx, ss.client, keys, args...).Int()
	if err != nil {
		return fmt.Errorf("redis: create session %s: %w", rec.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %s", sessions.ErrExists, rec.ID)
	}
	return nil
}

// Get implements sessions.Store.
func (ss *SessionStore) Get(ctx context.Context, id string) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: get session: %w", err)
	}
	res, err := getSessionScript.Run(ctx, ss.client, ss.sessionKeys(id)[:2]).Result()
	return decodeSession(id, res, err)
}

// Touch implements sessions.Store.
func (ss *SessionStore) Touch(ctx context.Context, id string, now time.Time, every time.Duration) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: touch session: %w", err)
	}
	res, err := touchSessionScript.Run(ctx, ss.client, ss.sessionKeys(id),
		id, nanos(now), nanos(now.Add(-every)), now.UnixMilli()).Result()
	return decodeSession(id, res, err)
}

// SetLevel implements sessions.Store.
func (ss *SessionStore) SetLevel(ctx context.Context, id, level string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, id, "level", level, now, ss.sessionKeys(id))
}

// Subscribe implements sessions.Store: the session's set and the URI's
// subscribers change in one script.
func (ss *SessionStore) Subscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, id, "sub", uri, now, append(ss.sessionKeys(id), ss.keys.subscribers+uri))
}

// Unsubscribe implements sessions.Store, as Subscribe does.
func (ss *SessionStore) Unsubscribe(ctx context.Context, id, uri string, now time.Time) (*sessions.Record, error) {
	return ss.change(ctx, id, "unsub", uri, now, append(ss.sessionKeys(id), ss.keys.subscribers+uri))
}

// change runs changeSessionScript on keys.
func (ss *SessionStore) change(ctx context.Context, id, what, value string, now time.Time, keys []string) (*sessions.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: change session (%s): %w", what, err)
	}
	res, err := changeSessionScript.Run(ctx, ss.client, keys,
		what, value, id, nanos(now), now.UnixMilli()).Result()
	return decodeSession(id, res, err)
}

// End implements sessions.Store.
func (ss *SessionStore) End(ctx context.Context, id, principal string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: end session: %w", err)
	}
	keys := append(ss.sessionKeys(id), ss.keys.reply+ss.tokens.next())
	n, err := endSessionScript.Run(ctx, ss.client, keys, principal, id, ss.keys.subscribers,
		sessions.EndedLastSeen.UnixNano(), sessions.EndedLastSeen.UnixMilli()).Int()
	if err != nil {
		return fmt.Errorf("redis: end session %s: %w", id, err)
	}
	if n == 0 {
		return sessions.ErrNotFound
	}
	return nil
}

// Expire implements sessions.Store.
func (ss *SessionStore) Expire(ctx context.Context, idleBefore time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: expire sessions: %w", err)
	}
	ids, err := expireSessionsScript.Run(ctx, ss.client, []string{ss.keys.sessions, ss.keys.reply + ss.tokens.next()},
		idleBefore.UnixMilli(), limit, ss.keys.session, ss.keys.subscribers).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: expire sessions: %w", err)
	}
	return ids, nil
}

// Subscribers implements sessions.Store: one ZRANGE by ID of the URI's
// subscribers.
func (ss *SessionStore) Subscribers(ctx context.Context, uri, after string, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: subscribers: %w", err)
	}
	if limit <= 0 {
		return nil, nil // Count 0 would mean no LIMIT
	}
	start := "-"
	if after != "" {
		start = "(" + after
	}
	ids, err := ss.client.ZRangeArgs(ctx, redis.ZRangeArgs{Key: ss.keys.subscribers + uri, Start: start, Stop: "+", ByLex: true, Count: int64(limit)}).Result()
	if err != nil {
		return nil, fmt.Errorf("redis: reading the subscribers of %s: %w", uri, err)
	}
	return ids, nil
}

// StateKey implements sessions.Store.
func (ss *SessionStore) StateKey(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: state key: %w", err)
	}
	key, err := stateKeyScript.Run(ctx, ss.client, []string{ss.keys.stateKey}, sessions.NewKey()).Text()
	if err != nil {
		return nil, fmt.Errorf("redis: state key: %w", err)
	}
	return []byte(key), nil
}

// decodeSession turns what getSessionScript, touchSessionScript or
// changeSessionScript returned into a record.
func decodeSession(id string, res any, err error) (*sessions.Record, error) {
	switch {
	case errors.Is(err, redis.Nil):
		return nil, sessions.ErrNotFound
	case err != nil:
		return nil, fmt.Errorf("redis: read session %s: %w", id, err)
	}
	parts, ok := res.([]any)
	if !ok || len(parts) != 2 {
		return nil, fmt.Errorf("redis: session %s: unexpected reply %T", id, res)
	}
	flat, _ := parts[0].([]any)
	h := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		k, _ := flat[i].(string)
		v, _ := flat[i+1].(string)
		h[k] = v
	}
	rec := &sessions.Record{ID: id, Principal: h["principal"], Version: h["version"], Level: h["level"], Ended: h["ended"] == "1"}
	if c := h["caps"]; c != "" {
		rec.Capabilities = []byte(c)
	}
	if c := h["client"]; c != "" {
		rec.ClientInfo = []byte(c)
	}
	for _, f := range []struct {
		name string
		t    *time.Time
	}{{"created", &rec.CreatedAt}, {"seen", &rec.LastSeen}} {
		ns, err := strconv.ParseInt(h[f.name], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("redis: session %s has an unreadable %s time %q", id, f.name, h[f.name])
		}
		*f.t = time.Unix(0, ns)
	}
	subs, _ := parts[1].([]any)
	for _, s := range subs {
		if uri, ok := s.(string); ok {
			rec.Subscriptions = append(rec.Subscriptions, uri)
		}
	}
	return rec, nil
}

// nanos formats t as Unix nanoseconds.
func nanos(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }
