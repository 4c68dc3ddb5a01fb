package redis

import "github.com/redis/go-redis/v9"

// The Lua scripts behind every write and every listing. Each runs
// atomically, so a task's hash and its index entries never disagree. Times
// are Unix milliseconds; "now" is the Redis server's clock (TIME), which
// also sets key TTLs, so the instances' clocks never meet the server's.
//
// A task whose ExpiresAt is set gets a key TTL: its deadline is ExpiresAt
// or the write, whichever is later, plus the grace. The unfinished-task
// sets are scored by that deadline ("+inf" without one), so a quota check
// first drops tasks Redis has expired by itself.

// luaNow sets now to the server's time in milliseconds.
const luaNow = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// luaSignal defines signal, which publishes msg (unless it is ”) on the
// channel, except where the channel's only subscriber is the writing
// instance's own Bus: own is that Bus's own channel (Bus.own), or ” to
// publish always. A lone instance so never receives its own writes back
// (their signals reach its subscriptions at once, through the RelayBus),
// which cost it a wake-up, a read and 10 allocations a signal. The Bus's
// connection subscribes to both channels in one SUBSCRIBE and loses both
// when it drops, so a subscriber of own is that Bus on the signal channel,
// counted in the same atomic step as the write: while the Bus is
// reconnecting, or closed, the one subscriber left is another instance,
// and it hears the write. PUBSUB NUMSUB counts the subscribers of the node
// it runs on: on Redis Cluster, where a message reaches every node's, own
// is ”.
const luaSignal = `
local function signal(channel, msg, own)
	if msg == '' then return end
	if own ~= '' then
		local n = redis.call('PUBSUB', 'NUMSUB', channel, own)
		if n[4] > 0 and n[2] <= 1 then return end
	end
	redis.call('PUBLISH', channel, msg)
end
`

// luaDeadline sets deadline for a task with expiry score exp (” for none),
// as the string a command takes.
const luaDeadline = `
local function deadline_of(exp, grace)
	if exp == '' then return '+inf' end
	return string.format('%d', math.max(tonumber(exp), now) + tonumber(grace))
end
`

// createScript stores a new task unless its ID is taken or a quota is full.
//
// KEYS: task, seq, list, expiry, lease, active, principal's active, all.
// ARGV: id, per-principal quota, total quota, grace, expiry score, lease
// score, expiry member, signal channel, signal message (” for none), the
// hash's field-value pairs as a field list (field_list.go), the first
// pair the write's token, and the own channel of the writer's Bus (see
// luaSignal).
// Returns "exists", "limit:principal", "limit:total", or the creation
// number, also when this very write stored the task in an earlier run
// (write_tokens.go).
var createScript = redis.NewScript(luaNow + luaDeadline + luaSignal + `
if redis.call('EXISTS', KEYS[1]) == 1 then
	if redis.call('HGET', KEYS[1], 'w') == cmsgpack.unpack(ARGV[10])[2] then
		return tonumber(redis.call('HGET', KEYS[1], 'seq'))
	end
	return 'exists'
end
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now)
local per, total = tonumber(ARGV[2]), tonumber(ARGV[3])
if per > 0 and redis.call('ZCARD', KEYS[7]) >= per then return 'limit:principal' end
if total > 0 and redis.call('ZCARD', KEYS[6]) >= total then return 'limit:total' end
local seq = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'seq', seq, 'v', 1, unpack(cmsgpack.unpack(ARGV[10])))
redis.call('ZADD', KEYS[3], seq, ARGV[1])
redis.call('ZADD', KEYS[8], seq, ARGV[1])
local deadline = deadline_of(ARGV[5], ARGV[4])
if ARGV[5] ~= '' then
	redis.call('ZADD', KEYS[4], ARGV[5], ARGV[7])
	redis.call('PEXPIREAT', KEYS[1], deadline)
end
if ARGV[6] ~= '' then redis.call('ZADD', KEYS[5], ARGV[6], ARGV[1]) end
redis.call('ZADD', KEYS[6], deadline, ARGV[1])
redis.call('ZADD', KEYS[7], deadline, ARGV[1])
signal(ARGV[8], ARGV[9], ARGV[11])
return seq
`)

// updateScript replaces a task's mutable fields if it is still at the
// creation number and version the caller checked the change against.
//
// KEYS: task, expiry, lease, active, principal's active.
// ARGV: id, expected creation number, expected version, new version,
// "1" if the task stays unfinished, grace, expiry score, lease score,
// expiry member, signal channel, signal message (” for none), the
// field-value pairs to set (the first pair the write's token) and the
// fields to delete, each as a field list (field_list.go), and the own
// channel of the writer's Bus (see luaSignal).
// Returns "ok", also when this very write made the new version in an
// earlier run (write_tokens.go), "missing" or "stale".
var updateScript = redis.NewScript(luaNow + luaDeadline + luaSignal + `
local cur = redis.call('HMGET', KEYS[1], 'seq', 'v', 'w')
if not cur[1] then return 'missing' end
if cur[1] ~= ARGV[2] or cur[2] ~= ARGV[3] then
	if cur[1] == ARGV[2] and cur[2] == ARGV[4] and cur[3] == cmsgpack.unpack(ARGV[12])[2] then return 'ok' end
	return 'stale'
end
redis.call('HSET', KEYS[1], 'v', ARGV[4], unpack(cmsgpack.unpack(ARGV[12])))
local unset = cmsgpack.unpack(ARGV[13])
if #unset > 0 then redis.call('HDEL', KEYS[1], unpack(unset)) end
local deadline = deadline_of(ARGV[7], ARGV[6])
if ARGV[7] ~= '' then
	redis.call('ZADD', KEYS[2], ARGV[7], ARGV[9])
	redis.call('PEXPIREAT', KEYS[1], deadline)
else
	redis.call('ZREM', KEYS[2], ARGV[9])
	redis.call('PERSIST', KEYS[1])
end
if ARGV[8] ~= '' then
	redis.call('ZADD', KEYS[3], ARGV[8], ARGV[1])
else
	redis.call('ZREM', KEYS[3], ARGV[1])
end
if ARGV[5] == '1' then
	redis.call('ZADD', KEYS[4], deadline, ARGV[1])
	redis.call('ZADD', KEYS[5], deadline, ARGV[1])
else
	redis.call('ZREM', KEYS[4], ARGV[1])
	redis.call('ZREM', KEYS[5], ARGV[1])
end
signal(ARGV[10], ARGV[11], ARGV[14])
return 'ok'
`)

// luaForget removes a task's ID from every index; the principal's sets are
// found by name from the key prefixes.
const luaForget = `
local function forget(id, principal, member)
	redis.call('ZREM', KEYS[1], member)
	redis.call('ZREM', KEYS[2], id)
	redis.call('ZREM', KEYS[3], id)
	redis.call('ZREM', KEYS[4], id)
	redis.call('ZREM', ARGV[2] .. principal, id)
	redis.call('ZREM', ARGV[3] .. principal, id)
end
`

// deleteScript deletes a task and its index entries.
//
// KEYS: expiry, lease, active, all, the call's kept reply.
// ARGV: task key prefix, list key prefix, active key prefix, id.
// Returns 1, also when an earlier run of this very call deleted the task
// (kept_replies.go), or 0 when there is no such task.
var deleteScript = redis.NewScript(luaForget + luaKeptReply + `
local done = kept(KEYS[5])
if done then return done end
local key = ARGV[1] .. ARGV[4]
local principal = redis.call('HGET', key, 'principal')
if not principal then return 0 end
redis.call('DEL', key)
forget(ARGV[4], principal, string.len(ARGV[4]) .. ':' .. ARGV[4] .. principal)
return keep(KEYS[5], 1)
`)

// luaBudget bounds how many index entries one listing script examines, so
// that a backlog of tasks Redis expired by itself is worked off over
// several calls instead of stalling the server in one.
const luaBudget = `
local budget = 10 * tonumber(ARGV[#ARGV]) + 100
`

// expiredScript lists up to a limit of tasks whose expiry score is not
// after now, forgetting on the way those whose keys Redis has expired. A
// score is a deadline rounded up to the millisecond, so the caller passes
// now rounded up as well and checks the exact times returned.
//
// KEYS: expiry, lease, active, all.
// ARGV: task key prefix, list key prefix, active key prefix, now, limit.
// Returns each task's ID and its expires_at field.
var expiredScript = redis.NewScript(luaForget + luaBudget + `
local limit = tonumber(ARGV[5])
local out, offset = {}, 0
while #out < 2 * limit and budget > 0 do
	local batch = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[4], 'LIMIT', offset, limit - #out / 2)
	budget = budget - #batch
	for _, member in ipairs(batch) do
		local sep = string.find(member, ':', 1, true)
		local n = tonumber(string.sub(member, 1, sep - 1))
		local id = string.sub(member, sep + 1, sep + n)
		local at = redis.call('HGET', ARGV[1] .. id, 'expires_at')
		if at then
			out[#out + 1] = id
			out[#out + 1] = at
			offset = offset + 1
		elseif redis.call('EXISTS', ARGV[1] .. id) == 0 then
			forget(id, string.sub(member, sep + n + 1), member)
		else
			redis.call('ZREM', KEYS[1], member)
		end
	end
	if #batch == 0 then break end
end
return out
`)

// deleteExpiredScript deletes up to a limit of finished tasks whose expiry
// score is not after now, forgetting on the way those whose keys Redis has
// expired. The caller passes now rounded down to the millisecond: a score
// is a deadline rounded up, so every task deleted is due.
//
// KEYS: expiry, lease, active, all, the call's kept reply.
// ARGV: task key prefix, list key prefix, active key prefix, now, limit.
// Returns each deleted task's ID, principal, method, name and status; an
// earlier run of this very call that deleted some returns what it
// returned (kept_replies.go).
var deleteExpiredScript = redis.NewScript(luaForget + luaBudget + luaKeptReply + `
local done = kept(KEYS[5])
if done then return done end
local limit = tonumber(ARGV[5])
local finished = {completed = true, failed = true, cancelled = true}
local out, offset = {}, 0
while #out < 5 * limit and budget > 0 do
	local batch = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[4], 'LIMIT', offset, limit - #out / 5)
	budget = budget - #batch
	for _, member in ipairs(batch) do
		local sep = string.find(member, ':', 1, true)
		local n = tonumber(string.sub(member, 1, sep - 1))
		local id = string.sub(member, sep + 1, sep + n)
		local key = ARGV[1] .. id
		local f = redis.call('HMGET', key, 'status', 'principal', 'method', 'name')
		if not f[1] then
			forget(id, string.sub(member, sep + n + 1), member)
		elseif finished[f[1]] then
			redis.call('DEL', key)
			forget(id, f[2], member)
			out[#out + 1] = id
			out[#out + 1] = f[2]
			out[#out + 1] = f[3]
			out[#out + 1] = f[4]
			out[#out + 1] = f[1]
		else
			offset = offset + 1
		end
	end
	if #batch == 0 then break end
end
if #out > 0 then keep(KEYS[5], out) end
return out
`)

// leaseExpiredScript lists up to a limit of tasks whose lease score is not
// after now, dropping on the way those whose keys Redis has expired (the
// expiry sweep forgets them everywhere else). Now is rounded as for
// expiredScript.
//
// KEYS: lease.
// ARGV: task key prefix, now, limit.
// Returns each task's ID and its lease_expires_at field.
var leaseExpiredScript = redis.NewScript(luaBudget + `
local limit = tonumber(ARGV[3])
local out, offset = {}, 0
while #out < 2 * limit and budget > 0 do
	local batch = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', offset, limit - #out / 2)
	budget = budget - #batch
	for _, id in ipairs(batch) do
		local at = redis.call('HGET', ARGV[1] .. id, 'lease_expires_at')
		if at then
			out[#out + 1] = id
			out[#out + 1] = at
			offset = offset + 1
		else
			redis.call('ZREM', KEYS[1], id)
		end
	end
	if #batch == 0 then break end
end
return out
`)

// listScript returns up to a limit of a principal's tasks after a creation
// number, in order, forgetting on the way those whose keys Redis expired.
//
// KEYS: the principal's list.
// ARGV: task key prefix, creation number to start after, limit.
// Returns 1 or 0 (whether more tasks may follow), the creation number of
// the last entry examined (the next page starts after it), then each
// task's ID and its hash as a flat field-value array. Once the budget is
// spent it returns 1 even if only expired keys follow.
var listScript = redis.NewScript(luaBudget + `
local limit = tonumber(ARGV[3])
local out = {0, ARGV[2]}
while budget > 0 do
	local batch = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. out[2], '+inf', 'WITHSCORES', 'LIMIT', 0, limit + 1)
	budget = budget - #batch / 2
	for i = 1, #batch, 2 do
		local id = batch[i]
		local key = ARGV[1] .. id
		if redis.call('EXISTS', key) == 0 then
			redis.call('ZREM', KEYS[1], id)
		elseif #out == 2 + 2 * limit then
			out[1] = 1
			return out
		else
			out[#out + 1] = id
			out[#out + 1] = redis.call('HGETALL', key)
		end
		out[2] = batch[i + 1]
	end
	if #batch < 2 * (limit + 1) then return out end
end
out[1] = 1
return out
`)
