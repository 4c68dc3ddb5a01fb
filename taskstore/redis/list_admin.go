package redis

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/weftmcp/weft/tasks"
)

var _ tasks.Inventory = (*Store)(nil)

// adminCursors are this store's ListAll cursors: the creation number below
// which the next page starts, after the prefix "ra".
const adminCursors = tasks.SeqCursor("ra")

// listAllScript returns up to a limit of tasks matching a status and a
// name ("" for any), newest first, from at most a scan's worth of entries
// of a set by creation number (every task's, or a principal's), below a
// score; it forgets on the way the entries whose keys Redis expired.
//
// KEYS: the set.
// ARGV: task key prefix, the highest score to examine ("+inf", or "(N"),
// scan size, status, name, limit.
// Returns 1 or 0 (whether more tasks may follow), the creation number the
// next page starts below, then each task's ID and its hash as a flat
// field-value array.
var listAllScript = redis.NewScript(`
local scan, limit = tonumber(ARGV[3]), tonumber(ARGV[6])
local out = {0, ''}
local batch = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[2], '-inf', 'WITHSCORES', 'LIMIT', 0, scan)
for i = 1, #batch, 2 do
	local id, seq = batch[i], batch[i + 1]
	local key = ARGV[1] .. id
	local f = redis.call('HMGET', key, 'status', 'name')
	if not f[1] then
		redis.call('ZREM', KEYS[1], id)
	elseif (ARGV[4] == '' or f[1] == ARGV[4]) and (ARGV[5] == '' or f[2] == ARGV[5]) then
		if #out == 2 + 2 * limit then
			out[1] = 1
			return out
		end
		out[#out + 1] = id
		out[#out + 1] = redis.call('HGETALL', key)
	end
	out[2] = seq
end
if #batch == 2 * scan then out[1] = 1 end
return out
`)

// ListAll implements tasks.Inventory. A page examines at most
// tasks.InventoryScan entries of the set of every task (or, with a
// principal, of the principal's list), newest first, in one script: its
// cost is bounded whatever the store holds and whatever the filter
// matches.
func (s *Store) ListAll(ctx context.Context, f tasks.Filter, cursor string, limit int) ([]*tasks.Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("redis: list all: %w", err)
	}
	seq, err := adminCursors.Below(cursor, limit)
	if err != nil {
		return nil, "", fmt.Errorf("redis: list all: %w", err)
	}
	below := "+inf"
	if cursor != "" {
		below = "(" + strconv.FormatInt(seq, 10)
	}
	set := s.keys.all
	if f.Principal != "" {
		set = s.keys.list + f.Principal
	}
	res, err := listAllScript.Run(ctx, s.client, []string{set}, s.keys.task, below, tasks.InventoryScan,
		string(f.Status), f.Name, limit).Slice()
	if err != nil {
		return nil, "", fmt.Errorf("redis: list all tasks: %w", err)
	}
	if len(res) < 2 || len(res)%2 != 0 {
		return nil, "", fmt.Errorf("redis: list all tasks: the script answered %d values, not a page", len(res))
	}
	recs := make([]*tasks.Record, 0, (len(res)-2)/2)
	for i := 2; i < len(res); i += 2 {
		id, _ := res[i].(string)
		flat, _ := res[i+1].([]any)
		rec, _, err := decodeRecord(id, pairs(flat))
		if err != nil {
			return nil, "", err
		}
		recs = append(recs, rec)
	}
	if more, _ := res[0].(int64); more == 0 {
		return recs, "", nil
	}
	last, err := strconv.ParseInt(fmt.Sprint(res[1]), 10, 64)
	if err != nil {
		return nil, "", fmt.Errorf("redis: list all tasks: the script answered %v as the last creation number", res[1])
	}
	return recs, adminCursors.Encode(last), nil
}

// totalsChunk is how many tasks one call of totalsScript counts: Redis
// runs one script at a time, so a count of every task is many short calls.
const totalsChunk = 1000

// totalsScript counts a chunk of tasks of the set of every task, by status
// and (the unfinished ones) by owner, forgetting on the way the entries
// whose keys Redis expired.
//
// KEYS: all.
// ARGV: task key prefix, the lowest score to examine ("-inf", or "(N"),
// chunk size.
// Returns the creation number of the last task examined ("" for none),
// then pairs of a key ("s" and a status, or "o" and an owner) and a count.
var totalsScript = redis.NewScript(`
local batch = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3]))
local counts, out = {}, {''}
local finished = {completed = true, failed = true, cancelled = true}
for i = 1, #batch, 2 do
	local id = batch[i]
	local f = redis.call('HMGET', ARGV[1] .. id, 'status', 'owner')
	if not f[1] then
		redis.call('ZREM', KEYS[1], id)
	else
		counts['s' .. f[1]] = (counts['s' .. f[1]] or 0) + 1
		if not finished[f[1]] then
			local o = 'o' .. (f[2] or '')
			counts[o] = (counts[o] or 0) + 1
		end
	end
	out[1] = batch[i + 1]
end
for k, n in pairs(counts) do
	out[#out + 1] = k
	out[#out + 1] = n
end
return out
`)

// Totals implements tasks.Inventory, counting the set of every task a
// chunk at a time.
func (s *Store) Totals(ctx context.Context) (tasks.Totals, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Totals{}, fmt.Errorf("redis: totals: %w", err)
	}
	t := tasks.Totals{ByStatus: make(map[tasks.Status]int), ByOwner: make(map[string]int)}
	from := "-inf"
	for {
		res, err := totalsScript.Run(ctx, s.client, []string{s.keys.all}, s.keys.task, from, totalsChunk).Slice()
		if err != nil {
			return tasks.Totals{}, fmt.Errorf("redis: counting the tasks: %w", err)
		}
		last, _ := res[0].(string)
		for i := 1; i+1 < len(res); i += 2 {
			key, _ := res[i].(string)
			n, _ := res[i+1].(int64)
			if status, ok := cutKind(key, 's'); ok {
				t.ByStatus[tasks.Status(status)] += int(n)
			} else if owner, ok := cutKind(key, 'o'); ok {
				t.ByOwner[owner] += int(n)
			}
		}
		if last == "" {
			return t, nil
		}
		from = "(" + last
	}
}

// cutKind returns key without its first byte if that byte is kind.
func cutKind(key string, kind byte) (string, bool) {
	if key == "" || key[0] != kind {
		return "", false
	}
	return key[1:], true
}
