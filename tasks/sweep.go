package tasks

import (
	"context"
	"time"
)

// maxSweepBatches bounds the store calls of one sweep, so a backlog is
// worked off over several ticks instead of stalling one.
const maxSweepBatches = 10

// sweepLoop looks for expired tasks and lapsed leases every sweep interval
// until ctx ends.
func (r *Runtime) sweepLoop(ctx context.Context) {
	defer close(r.sweepsDone)
	ticker := time.NewTicker(r.cfg.sweepInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			r.sweepExpired(ctx)
			r.sweepLeases(ctx)
		}
	}
}
