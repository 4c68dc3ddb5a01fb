package stores

import (
	"context"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"
)

// roundTrips is a go-redis hook that counts the round trips a client makes
// to Redis: each command sent alone, and each pipeline or transaction,
// which goes as one. Redis's own command count cannot tell these apart,
// and counts every other client of the server too.
type roundTrips struct {
	n atomic.Int64
}

// DialHook implements goredis.Hook; dialling is not counted.
func (r *roundTrips) DialHook(next goredis.DialHook) goredis.DialHook { return next }

// ProcessHook implements goredis.Hook: one command, one round trip.
func (r *roundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements goredis.Hook: one pipeline (or MULTI/EXEC
// transaction), one round trip.
func (r *roundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}
