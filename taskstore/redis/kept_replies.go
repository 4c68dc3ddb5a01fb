package redis

// Kept replies. A retried write (see write_tokens.go) whose first run
// deleted something finds nothing to recognise it by: a retried Delete
// would report the task missing, a retried sweep would list nothing of
// what the first run deleted. Such a script therefore keeps its reply for
// a moment under a key named by the call's write token, and a run that
// finds the key answers with what it holds instead of running again. Only
// a reply worth keeping is kept (a deletion made, a list not empty): a
// retry of a run that changed nothing may run afresh.
//
// The key lives keptReplyMillis: go-redis retries within milliseconds,
// and all its retries at its default timeouts (3 retries, a 3-second read
// timeout and a backoff under a second each) end well within it. Nothing
// else deletes the key.

// keptReplyMillis is how long a reply is kept, in milliseconds, as the
// scripts take it.
const keptReplyMillis = "60000"

// luaKeptReply defines kept, which returns the reply kept under key by an
// earlier run of the same call (nil when there is none), and keep, which
// keeps v under key and returns it. A reply is a number, a string or an
// array of them, as a script returns it.
const luaKeptReply = `
local function kept(key)
	local r = redis.call('GET', key)
	if r then return cmsgpack.unpack(r) end
	return nil
end
local function keep(key, v)
	redis.call('SET', key, cmsgpack.pack(v), 'PX', ` + keptReplyMillis + `)
	return v
end
`
