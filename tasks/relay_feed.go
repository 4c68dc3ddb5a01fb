package tasks

import "context"

var _ Feed = (*RelayBus)(nil)

// SubscribeAll implements Feed: the subscription receives this instance's
// signals at once and the others' as the driver hands them to Receive.
func (b *RelayBus) SubscribeAll(ctx context.Context) (Subscription, error) {
	if b.isClosed() {
		return nil, ErrBusClosed
	}
	return b.local.SubscribeAll(ctx)
}
