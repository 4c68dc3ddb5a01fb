package tasks

import (
	"context"
	"sync"
)

// funcSubscriber is a Bus that can call a function for each signal of a
// task instead of queueing it on a channel, so that following a task
// needs no goroutine (MemoryBus, RelayBus and the drivers built on it).
type funcSubscriber interface {
	SubscribeFunc(ctx context.Context, taskID string, fn func(Signal)) (Subscription, error)
}

// subscribeFunc calls fn for each signal of the task until the returned
// Subscription is closed. On a Bus that cannot call functions, a goroutine
// reads the channel and calls fn; inline reports that fn is called on the
// publisher's goroutine instead, before Publish returns.
func subscribeFunc(ctx context.Context, bus Bus, taskID string, fn func(Signal)) (sub Subscription, inline bool, err error) {
	if fs, ok := bus.(funcSubscriber); ok {
		sub, err := fs.SubscribeFunc(ctx, taskID, fn)
		return sub, err == nil, err
	}
	ch, err := bus.Subscribe(ctx, taskID)
	if err != nil {
		return nil, false, err
	}
	f := &forwarder{sub: ch, stop: make(chan struct{})}
	go f.forward(fn)
	return f, false, nil
}

// forwarder calls a function for each signal of a channel subscription.
type forwarder struct {
	sub  Subscription
	stop chan struct{}
	once sync.Once
}

func (f *forwarder) forward(fn func(Signal)) {
	for {
		select {
		case s, ok := <-f.sub.Signals():
			if !ok {
				return
			}
			fn(s)
		case <-f.stop:
			return
		}
	}
}

// Signals implements Subscription: the signals go to the function.
func (f *forwarder) Signals() <-chan Signal { return nil }

// Close implements Subscription.
func (f *forwarder) Close() error {
	f.once.Do(func() { close(f.stop) })
	return f.sub.Close()
}
