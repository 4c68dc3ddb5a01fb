package sqlite

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/tasks"
)

var _ tasks.Feed = (*Bus)(nil)

// SubscribeAll implements tasks.Feed: the subscription receives signals
// published through this Bus at once, and those of other Buses on the file
// at the next poll. Like Subscribe, it first delivers what other Buses
// have written so far, so the new subscription starts with none from
// before it.
func (b *Bus) SubscribeAll(ctx context.Context) (tasks.Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: subscribe to every task: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errBusClosed
	}
	b.pollMu.Lock()
	defer b.pollMu.Unlock()
	if err := b.catchUp(ctx); err != nil {
		return nil, fmt.Errorf("sqlite: subscribe to every task: reading signals from %s: %w", b.path, err)
	}
	return b.local.SubscribeAll(ctx)
}
