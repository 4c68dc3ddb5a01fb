package redis

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// preloadTimeout bounds the SCRIPT LOAD round trip New makes.
const preloadTimeout = 5 * time.Second

// preloaded is every script a Store, its SessionStore, its MessageLog and
// its Inventory run (the Bus runs none). A script added to the package belongs here too
// (TestEveryScriptIsPreloaded counts them).
var preloaded = []*redis.Script{
	createScript, updateScript, deleteScript, expiredScript, deleteExpiredScript, leaseExpiredScript, listScript,
	getSessionScript, touchSessionScript, createSessionScript, changeSessionScript, endSessionScript,
	expireSessionsScript, stateKeyScript,
	appendMessageScript, readMessagesScript, clearReaderScript,
	listAllScript, totalsScript, renewLeasesScript,
}

// preloadScripts loads every script into the client's Redis (each server
// of a cluster or ring), in one pipelined round trip per server. go-redis
// runs a script with EVALSHA and, when the server has not seen it, again
// with EVAL: without this, the first use of each script on each server
// costs two round trips. It is an optimisation only, since a script a
// server lacks later (restarted, or SCRIPT FLUSH) still runs through EVAL:
// a failure is logged, and the Store works on.
func preloadScripts(client redis.UniversalClient, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), preloadTimeout)
	defer cancel()
	var err error
	switch c := client.(type) {
	case *redis.ClusterClient:
		err = c.ForEachShard(ctx, func(ctx context.Context, shard *redis.Client) error { return loadScripts(ctx, shard) })
	case *redis.Ring:
		err = c.ForEachShard(ctx, func(ctx context.Context, shard *redis.Client) error { return loadScripts(ctx, shard) })
	default:
		err = loadScripts(ctx, client)
	}
	if err != nil {
		log.Warn("redis: could not load the task store's scripts ahead of their first use, which will cost a round trip more per script",
			slog.Any("error", err))
	}
}

// loadScripts sends SCRIPT LOAD for every script in one pipeline.
func loadScripts(ctx context.Context, c redis.Cmdable) error {
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, s := range preloaded {
			s.Load(ctx, queuedLoad{p})
		}
		return nil
	})
	return err
}

// queuedLoad lets Script.Load, the one way to reach a script's source,
// queue its SCRIPT LOAD on a pipeline. Script.Load takes the value of the
// command it gets back as the script's hash, and a queued command has no
// value yet: it gets back one holding the hash Redis will answer, the SHA-1
// of the source.
type queuedLoad struct{ redis.Pipeliner }

// ScriptLoad queues SCRIPT LOAD of src and returns its hash.
func (q queuedLoad) ScriptLoad(ctx context.Context, src string) *redis.StringCmd {
	q.Pipeliner.ScriptLoad(ctx, src)
	sum := sha1.Sum([]byte(src))
	return redis.NewStringResult(hex.EncodeToString(sum[:]), nil)
}
