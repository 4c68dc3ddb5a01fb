package tasks

import "context"

// Feed is the optional Bus interface of an operator's view (the console):
// one subscription to the signals of every task, on every instance. The
// memory Bus, the RelayBus and the drivers in taskstore implement it;
// check for it with a type assertion.
type Feed interface {
	// SubscribeAll starts receiving every task's signals, as Subscribe
	// does one task's. A subscriber that falls behind is not left with a
	// stale view: its queued signals are replaced by one Resync signal.
	SubscribeAll(ctx context.Context) (Subscription, error)
}

// Resync is the signal a Feed subscription receives in place of signals
// it lost (it fell behind, or the bus's connection to other instances was
// restored): its owner should read again whatever it shows.
var Resync = Signal{Kind: SignalStatus}

// feedBuffer is how many undelivered signals a Feed subscription holds
// before they give way to one Resync. Larger than a task's buffer: a feed
// carries every task's signals, and each resync costs its owner a re-read.
const feedBuffer = 1024
