package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/weftmcp/weft/tasks"
)

var _ tasks.LeaseRenewer = (*Store)(nil)

// renewLeasesScript extends the leases of an owner's unfinished tasks.
// A task's key deadline stays as its last Update set it: it moves only
// for a task past its ExpiresAt, which the Runtime's sweep cancels first.
//
// KEYS: lease.
// ARGV: task key prefix, owner, lease_expires_at field, lease score, then
// the task IDs.
// Returns the IDs of the tasks renewed.
var renewLeasesScript = redis.NewScript(`
local out = {}
for i = 5, #ARGV do
	local id = ARGV[i]
	local key = ARGV[1] .. id
	local cur = redis.call('HMGET', key, 'status', 'owner', 'v')
	if cur[3] and cur[2] == ARGV[2] and (cur[1] == '` + string(tasks.StatusWorking) + `' or cur[1] == '` + string(tasks.StatusInputRequired) + `') then
		redis.call('HSET', key, 'lease_expires_at', ARGV[3], 'v', tonumber(cur[3]) + 1)
		redis.call('ZADD', KEYS[1], ARGV[4], id)
		out[#out + 1] = id
	end
end
return out
`)

// RenewLeases implements tasks.LeaseRenewer, with one script call: one
// round trip for the Runtime's batch of 500, where renewing each task
// alone took three (a read, and Update's read and script).
func (s *Store) RenewLeases(ctx context.Context, owner string, ids []string, until time.Time) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: renew leases: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if y := until.UTC().Year(); y < 1 || y > 9999 {
		return nil, fmt.Errorf("redis: renew leases: the time %s is outside the years 1 to 9999 the store can keep", until)
	}
	args := make([]any, 0, 4+len(ids))
	args = append(args, s.keys.task, owner, formatTime(until), ceilMillis(until))
	for _, id := range ids {
		args = append(args, id)
	}
	renewed, err := renewLeasesScript.Run(ctx, s.client, []string{s.keys.lease}, args...).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("redis: renew leases: %w", err)
	}
	return renewed, nil
}
