package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/sessions"
)

// MessageLog is a sessions.MessageLog in the Redis of a Store, under its
// prefix: every instance on that Redis and prefix routes its legacy
// sessions' messages through it. A box is a list of its newest
// sessions.KeepMessages messages beside a counter of the newest's number;
// who holds a session's GET stream is a key read as lapsed after its time
// (the caller's clock, not Redis's) and deleted with the session.
// Every call is one round trip. Get one with Store.Messages.
type MessageLog struct {
	client redis.UniversalClient
	keys   keys
	tokens *writeTokens // the Store's: tells an Append's retry from another Append
}

var _ sessions.MessageLog = (*MessageLog)(nil)

// Messages returns the MessageLog on the Store's client and prefix.
func (s *Store) Messages() *MessageLog {
	return &MessageLog{client: s.client, keys: s.keys, tokens: s.tokens}
}

// boxKey is the key of a box's list, and the start of its other keys'.
func (l *MessageLog) boxKey(session string, box sessions.Box) string {
	return l.keys.session + session + ":box" + strconv.Itoa(int(box))
}

// boxKeys are the keys of a box's list and counter.
func (l *MessageLog) boxKeys(session string, box sessions.Box) []string {
	k := l.boxKey(session, box)
	return []string{k, k + ":last"}
}

// appendKeys are the keys of a box's list and counter, and of the record
// of its latest append; appendMessageScript takes them and the session's
// hash.
func (l *MessageLog) appendKeys(session string, box sessions.Box) []string {
	k := l.boxKey(session, box)
	return []string{k, k + ":last", k + ":append", l.keys.session + session}
}

// goneBoxMillis is how long a box of a session the Store's SessionStore
// does not hold live is kept after its latest append, in milliseconds, as
// appendMessageScript takes it. Such a box has no one to read it; a day
// leaves a deployment that keeps its sessions in another store (so that
// every box looks like one) everything but the boxes idle for a day.
const goneBoxMillis = "86400000"

// readerKey is the key naming who holds the session's GET stream.
func (l *MessageLog) readerKey(session string) string { return l.keys.session + session + ":reader" }

// appendMessageScript numbers and stores a message, dropping the oldest
// beyond the number kept, and returns its number. A retry of an Append
// whose reply was lost (see write_tokens.go) finds the box's latest
// append made with its token and returns that append's number instead of
// storing the message again. The record of the latest append, "<token>
// <number>", lives as long as a kept reply (kept_replies.go): one key per
// box, overwritten, rather than one per call. What it cannot tell: an
// Append that another one followed between the two runs is stored twice;
// go-redis retries within milliseconds, so that is rare.
//
// A live session's box lives as long as the session: the session store's
// Expire deletes it. A box of a session missing or ended (a message on
// its way as the session ended) would outlive it for good, so its list
// and counter expire goneBoxMillis after their latest append.
//
// KEYS: list, counter, latest append, the session's hash. ARGV: data,
// kept, the write token.
var appendMessageScript = redis.NewScript(`
local latest = redis.call('GET', KEYS[3])
if latest and string.sub(latest, 1, #ARGV[3] + 1) == ARGV[3] .. ' ' then
	return tonumber(string.sub(latest, #ARGV[3] + 2))
end
local n = redis.call('INCR', KEYS[2])
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('SET', KEYS[3], ARGV[3] .. ' ' .. n, 'PX', ` + keptReplyMillis + `)
if redis.call('HGET', KEYS[4], 'ended') ~= '0' then
	redis.call('PEXPIRE', KEYS[1], ` + goneBoxMillis + `)
	redis.call('PEXPIRE', KEYS[2], ` + goneBoxMillis + `)
end
return n`)

// readMessagesScript returns the number of the first message it returns
// (-1 when the one after ARGV[1] was dropped), then the messages numbered
// above ARGV[1]. KEYS: list, counter.
var readMessagesScript = redis.NewScript(`
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local after = tonumber(ARGV[1])
if after >= last then return {after + 1} end
local first = last - redis.call('LLEN', KEYS[1]) + 1
if after + 1 < first then return {-1, first} end
local out = redis.call('LRANGE', KEYS[1], after + 1 - first, -1)
table.insert(out, 1, after + 1)
return out`)

// clearReaderScript deletes the reader record if ARGV[1] holds it.
// KEYS: the reader key.
var clearReaderScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then redis.call('DEL', KEYS[1]) end
return 0`)

// Append implements sessions.MessageLog.
func (l *MessageLog) Append(ctx context.Context, session string, box sessions.Box, data []byte) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("redis: append a session message: %w", err)
	}
	n, err := appendMessageScript.Run(ctx, l.client, l.appendKeys(session, box), data, sessions.KeepMessages, l.tokens.next()).Int64()
	if err != nil {
		return 0, fmt.Errorf("redis: appending a message of session %s: %w", session, err)
	}
	return uint64(n), nil
}

// Read implements sessions.MessageLog.
func (l *MessageLog) Read(ctx context.Context, session string, box sessions.Box, after uint64) ([]sessions.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: read session messages: %w", err)
	}
	res, err := readMessagesScript.Run(ctx, l.client, l.boxKeys(session, box), after).Slice()
	if err != nil {
		return nil, fmt.Errorf("redis: reading the messages of session %s: %w", session, err)
	}
	first, ok := res[0].(int64)
	if !ok {
		return nil, fmt.Errorf("redis: reading the messages of session %s: unexpected reply %v", session, res)
	}
	if first < 0 {
		return nil, fmt.Errorf("%w: message %d of session %s was dropped (the oldest kept is %v)", sessions.ErrTrimmed, after+1, session, res[1])
	}
	out := make([]sessions.Message, 0, len(res)-1)
	for i, v := range res[1:] {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("redis: reading the messages of session %s: unexpected element %T", session, v)
		}
		out = append(out, sessions.Message{Seq: uint64(first) + uint64(i), Data: []byte(s)})
	}
	return out, nil
}

// Last implements sessions.MessageLog.
func (l *MessageLog) Last(ctx context.Context, session string, box sessions.Box) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("redis: last session message: %w", err)
	}
	n, err := l.client.Get(ctx, l.boxKeys(session, box)[1]).Uint64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("redis: reading the newest message of session %s: %w", session, err)
	}
	return n, nil
}

// SetReader implements sessions.MessageLog. The record is "<reader>
// <until in ms>".
func (l *MessageLog) SetReader(ctx context.Context, session, reader string, until time.Time) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: set a session's reader: %w", err)
	}
	var err error
	if until.IsZero() {
		err = clearReaderScript.Run(ctx, l.client, []string{l.readerKey(session)}, reader).Err()
	} else {
		err = l.client.Set(ctx, l.readerKey(session), reader+" "+strconv.FormatInt(until.UnixMilli(), 10), 0).Err()
	}
	if err != nil {
		return fmt.Errorf("redis: recording the reader of session %s: %w", session, err)
	}
	return nil
}

// HasReader implements sessions.MessageLog.
func (l *MessageLog) HasReader(ctx context.Context, session string, now time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("redis: has a session a reader: %w", err)
	}
	v, err := l.client.Get(ctx, l.readerKey(session)).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("redis: reading the reader of session %s: %w", session, err)
	}
	_, ms, _ := strings.Cut(v, " ")
	until, err := strconv.ParseInt(ms, 10, 64)
	return err == nil && until > now.UnixMilli(), nil
}

// Delete implements sessions.MessageLog.
func (l *MessageLog) Delete(ctx context.Context, session string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: delete session messages: %w", err)
	}
	to, from := l.boxKey(session, sessions.ToClient), l.boxKey(session, sessions.ToServer)
	if err := l.client.Del(ctx, to, to+":last", to+":append", from, from+":last", from+":append", l.readerKey(session)).Err(); err != nil {
		return fmt.Errorf("redis: deleting the messages of session %s: %w", session, err)
	}
	return nil
}
