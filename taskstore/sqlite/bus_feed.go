package sqlite

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/tasks"
)

var _ tasks.Feed = (*Bus)(nil)

// SubscribeAll implements tasks.Feed: the subscription receives signals
// published through this Bus at once, and those of other Buses on the file
// at the next poll. Unlike Subscribe, it first delivers what other Buses
// have written so far, so the new subscription starts with none from
// before it: a query, but once per console page, not per task.
func (b *Bus) SubscribeAll(ctx context.Context) (tasks.Subscription, error) {
	return b.subscribing(ctx, "subscribe to every task", func() (tasks.Subscription, error) {
		b.pollMu.Lock()
		defer b.pollMu.Unlock()
		if err := b.catchUp(ctx); err != nil {
			return nil, fmt.Errorf("sqlite: subscribe to every task: reading signals from %s: %w", b.path, err)
		}
		return b.local.SubscribeAll(ctx)
	})
}
