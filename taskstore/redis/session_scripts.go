package redis

import "github.com/redis/go-redis/v9"

// The Lua scripts of a SessionStore. A session is a hash (principal,
// version, caps, client, level, created and seen in Unix nanoseconds,
// ended "0" or "1"), a set of its subscriptions, and its member in the
// sessions sorted set, scored by LastSeen in milliseconds. While it lives,
// it is also a member of the subscribers sorted set of each URI it
// subscribed to (scores 0, so that members sort by ID).

// luaSession returns the session's hash and subscriptions, or false.
const luaSession = `
local function session()
	local h = redis.call('HGETALL', KEYS[1])
	if #h == 0 then return false end
	return {h, redis.call('SMEMBERS', KEYS[2])}
end
`

// getSessionScript reads a session. KEYS: hash, subscriptions.
var getSessionScript = redis.NewScript(luaSession + `return session()`)

// touchSessionScript reads a session, first setting its LastSeen to now
// when it is live and was last seen before the stale bound.
//
// KEYS: hash, subscriptions, sessions. ARGV: id, now (ns), stale bound
// (ns), now (ms).
var touchSessionScript = redis.NewScript(luaSession + `
if redis.call('HGET', KEYS[1], 'ended') == '0' and tonumber(redis.call('HGET', KEYS[1], 'seen')) < tonumber(ARGV[3]) then
	redis.call('HSET', KEYS[1], 'seen', ARGV[2])
	redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
end
return session()`)

// createSessionScript stores a new session unless its ID is taken.
//
// KEYS: hash, subscriptions, sessions, the call's kept reply. ARGV: id,
// LastSeen (ms), the subscribers key prefix, the count of field-value
// pairs, the pairs, then the subscriptions. Returns 0 when the ID is
// taken, else 1, also when an earlier run of this very call stored the
// session (kept_replies.go).
var createSessionScript = redis.NewScript(luaKeptReply + `
local done = kept(KEYS[4])
if done then return done end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = tonumber(ARGV[4])
for i = 5, 4 + 2 * n, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
for i = 5 + 2 * n, #ARGV do
	redis.call('SADD', KEYS[2], ARGV[i])
	redis.call('ZADD', ARGV[3] .. ARGV[i], 0, ARGV[1])
end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return keep(KEYS[4], 1)`)

// changeSessionScript changes a live session: "level" sets its level,
// "sub" and "unsub" add or remove a subscription, in the session's set and
// in the URI's subscribers; then it moves LastSeen to now unless later, and
// returns the session as changed.
//
// KEYS: hash, subscriptions, sessions, and for "sub" and "unsub" the URI's
// subscribers. ARGV: what, value, id, now (ns), now (ms). Returns false
// when the session is missing or ended.
var changeSessionScript = redis.NewScript(luaSession + `
if redis.call('HGET', KEYS[1], 'ended') ~= '0' then return false end
if ARGV[1] == 'level' then redis.call('HSET', KEYS[1], 'level', ARGV[2])
elseif ARGV[1] == 'sub' then
	redis.call('SADD', KEYS[2], ARGV[2])
	redis.call('ZADD', KEYS[4], 0, ARGV[3])
else
	redis.call('SREM', KEYS[2], ARGV[2])
	redis.call('ZREM', KEYS[4], ARGV[3])
end
if tonumber(redis.call('HGET', KEYS[1], 'seen')) < tonumber(ARGV[4]) then
	redis.call('HSET', KEYS[1], 'seen', ARGV[4])
	redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3])
end
return session()`)

// luaUnindex removes a session from the subscribers of every URI it
// subscribed to.
const luaUnindex = `
local function unindex(subs, id, prefix)
	for _, uri in ipairs(redis.call('SMEMBERS', subs)) do redis.call('ZREM', prefix .. uri, id) end
end
`

// endSessionScript marks a live session of a principal ended, last seen
// at sessions.EndedLastSeen, and takes it out of the subscribers of its
// URIs.
//
// KEYS: hash, subscriptions, sessions, the call's kept reply. ARGV: the
// principal, the id, the subscribers key prefix, EndedLastSeen (ns),
// EndedLastSeen (ms). Returns 0 when it is missing, ended or another
// principal's, else 1, also when an earlier run of this very call ended
// it (kept_replies.go).
var endSessionScript = redis.NewScript(luaUnindex + luaKeptReply + `
local done = kept(KEYS[4])
if done then return done end
if redis.call('HGET', KEYS[1], 'ended') ~= '0' or redis.call('HGET', KEYS[1], 'principal') ~= ARGV[1] then return 0 end
unindex(KEYS[2], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[1], 'ended', '1', 'seen', ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[2])
return keep(KEYS[4], 1)`)

// expireSessionsScript deletes up to a limit of sessions last seen before
// a bound, with their message log's keys (messages.go), and returns their
// IDs; an earlier run of this very call that deleted some returns what it
// returned (kept_replies.go). The instances still call MessageLog.Delete
// for each (and must, for an older instance's Expire), but an instance
// that dies before it leaves nothing behind.
//
// KEYS: sessions, the call's kept reply. ARGV: the bound (ms, exclusive),
// the limit, the session hash prefix, the subscribers key prefix.
var expireSessionsScript = redis.NewScript(luaUnindex + luaKeptReply + `
local done = kept(KEYS[2])
if done then return done end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
	if redis.call('HGET', ARGV[3] .. id, 'ended') == '0' then unindex(ARGV[3] .. id .. ':subs', id, ARGV[4]) end
	local k = ARGV[3] .. id
	redis.call('DEL', k, k .. ':subs', k .. ':reader', k .. ':box0', k .. ':box0:last', k .. ':box0:append',
		k .. ':box1', k .. ':box1:last', k .. ':box1:append')
	redis.call('ZREM', KEYS[1], id)
end
if #ids > 0 then keep(KEYS[2], ids) end
return ids`)

// stateKeyScript stores the key unless one is stored, and returns the
// stored one. KEYS: the key's key. ARGV: a new key.
var stateKeyScript = redis.NewScript(`
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`)
