package stores

import (
	"context"
	"net/http"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"
)

// roundTrips is a go-redis hook that counts the round trips a client makes
// to Redis: each command sent alone, and each pipeline or transaction,
// which goes as one. Redis's own command count cannot tell these apart,
// and counts every other client of the server too.
//
// It counts apart the round trips made in the background, outside any HTTP
// request: those whose context is not one net/http gave a request handler
// (it carries http.ServerContextKey), such as the legacy session expiry
// sweep's, so that the round trips of requests can be judged alone.
type roundTrips struct {
	n, background atomic.Int64
}

// add counts one round trip made with ctx.
func (r *roundTrips) add(ctx context.Context) {
	r.n.Add(1)
	if ctx.Value(http.ServerContextKey) == nil {
		r.background.Add(1)
	}
}

// DialHook implements goredis.Hook; dialling is not counted.
func (r *roundTrips) DialHook(next goredis.DialHook) goredis.DialHook { return next }

// ProcessHook implements goredis.Hook: one command, one round trip.
func (r *roundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		r.add(ctx)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements goredis.Hook: one pipeline (or MULTI/EXEC
// transaction), one round trip.
func (r *roundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		r.add(ctx)
		return next(ctx, cmds)
	}
}
