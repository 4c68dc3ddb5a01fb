package client

import (
	"context"
	"fmt"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// Subscription is an open subscriptions/listen stream (2026-07-28). While it
// is open, the notifications the server sends on it reach the callbacks in
// Options (OnToolsListChanged, OnResourceUpdated, OnTaskStatus, ...) and
// wake the TaskHandles waiting on the tasks it names; once it has ended,
// late ones are dropped.
type Subscription struct {
	session *Session
	ackCh   chan struct{}      // closed when the server acknowledged it
	cancel  context.CancelFunc // ends the listen request
	done    chan struct{}      // closed when the listen request has ended
	err     error              // why it ended; set before done is closed

	// Set by the table under its lock.
	id          jsonrpc.ID // the listen request's ID, known before it is sent
	acked       bool       // the server acknowledged it
	filter      mcp.SubscriptionFilter
	closing     bool // Close was called
	serverEnded bool // the server sent notifications/cancelled for it
}

// ID returns the subscription's ID: the JSON-RPC ID of its listen request,
// which the server puts in the _meta of every notification on the stream.
func (sub *Subscription) ID() jsonrpc.ID {
	t := &sub.session.subs
	t.mu.Lock()
	defer t.mu.Unlock()
	return sub.id
}

// Acknowledged returns the notifications the server agreed to send: the
// subset of the requested filter it supports.
func (sub *Subscription) Acknowledged() mcp.SubscriptionFilter {
	t := &sub.session.subs
	t.mu.Lock()
	defer t.mu.Unlock()
	return sub.filter
}

// Done is closed when the subscription has ended.
func (sub *Subscription) Done() <-chan struct{} { return sub.done }

// Err returns nil while the subscription is open or after Close, and
// otherwise why it ended: ErrSubscriptionEnded when the server ended it, or
// the error of the connection.
func (sub *Subscription) Err() error {
	select {
	case <-sub.done:
		return sub.err
	default:
		return nil
	}
}

// Close ends the subscription: the client sends notifications/cancelled for
// the listen request and drops whatever the server still sends on it. It
// waits for the listen request to end and is safe to call more than once.
func (sub *Subscription) Close() error {
	t := &sub.session.subs
	t.mu.Lock()
	sub.closing = true
	t.mu.Unlock()
	sub.cancel()
	<-sub.done
	return nil
}

// Listen opens a subscriptions/listen stream for the notifications filter
// names and returns once the server has acknowledged it (modern sessions
// only; legacy sessions use Subscribe and the session-wide list_changed
// notifications). A filter naming TaskIDs declares the tasks extension on
// the request, as the extension requires; notifications/tasks then reach
// Options.OnTaskStatus and wake TaskHandle.Wait. The subscription outlives
// ctx, which bounds only the wait for the acknowledgement; end it with
// Close.
func (s *Session) Listen(ctx context.Context, filter mcp.SubscriptionFilter, opts ...CallOption) (*Subscription, error) {
	if !s.modern() {
		return nil, notInVersion(s, mcp.MethodSubscriptionsListen, "use Subscribe and the Options callbacks")
	}
	callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sub := &Subscription{session: s, ackCh: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	opts = append(opts[:len(opts):len(opts)], withID(func(id jsonrpc.ID) { s.subs.register(sub, id) }))
	if len(filter.TaskIDs) > 0 {
		opts = append(opts, declareTasks)
	}
	go sub.run(callCtx, &mcp.SubscriptionsListenParams{Notifications: filter}, opts)

	select {
	case <-sub.ackCh:
		return sub, nil
	case <-sub.done:
		select {
		case <-sub.ackCh: // acknowledged, then ended at once
			return sub, nil
		default:
		}
		return nil, fmt.Errorf("client: %s: %w", mcp.MethodSubscriptionsListen, sub.err)
	case <-ctx.Done():
		sub.Close()
		return nil, ctx.Err()
	}
}

// run holds the listen request open until the server answers it or it is
// cancelled, then records why the subscription ended.
func (sub *Subscription) run(ctx context.Context, params *mcp.SubscriptionsListenParams, opts []CallOption) {
	s := sub.session
	var res mcp.SubscriptionsListenResult
	err := call(ctx, s, mcp.MethodSubscriptionsListen, params, &res, opts)
	t := &s.subs
	t.mu.Lock()
	if sub.id.IsValid() {
		delete(t.byID, sub.id.Raw())
	}
	switch {
	case sub.serverEnded || err == nil:
		sub.err = ErrSubscriptionEnded
	case sub.closing:
		sub.err = nil
	default:
		sub.err = err
	}
	t.mu.Unlock()
	close(sub.done)
}

// subscriptionTable tracks the session's subscriptions by the ID of their
// listen request, from just before the request is sent until it ends.
type subscriptionTable struct {
	mu   sync.Mutex
	byID map[string]*Subscription
}

// all returns the subscriptions whose listen request is in flight.
func (t *subscriptionTable) all() []*Subscription {
	t.mu.Lock()
	defer t.mu.Unlock()
	subs := make([]*Subscription, 0, len(t.byID))
	for _, sub := range t.byID {
		subs = append(subs, sub)
	}
	return subs
}

// register records sub under the ID of its listen request, before the
// request is sent, so its acknowledgement finds it however fast it comes.
func (t *subscriptionTable) register(sub *Subscription, id jsonrpc.ID) {
	t.mu.Lock()
	sub.id = id
	t.byID[id.Raw()] = sub
	t.mu.Unlock()
}

// acknowledge binds a notifications/subscriptions/acknowledged to the
// listen request its _meta names; a repeated or stray one is ignored.
func (t *subscriptionTable) acknowledge(p *mcp.SubscriptionsAcknowledgedNotificationParams) {
	id, err := p.Meta.SubscriptionID()
	if err != nil {
		return
	}
	t.mu.Lock()
	sub := t.byID[id.Raw()]
	if sub == nil || sub.acked {
		t.mu.Unlock()
		return
	}
	sub.acked, sub.filter = true, p.Notifications
	t.mu.Unlock()
	close(sub.ackCh)
}

// open reports whether a notification's _meta names an open subscription:
// acknowledged, and ended neither by Close nor by the server.
func (t *subscriptionTable) open(meta mcp.Meta) bool {
	id, err := meta.SubscriptionID()
	if err != nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	sub := t.byID[id.Raw()]
	return sub != nil && sub.acked && !sub.closing && !sub.serverEnded
}

// endByServer ends the subscription with id because the server cancelled
// it; it reports false when id names no subscription.
func (t *subscriptionTable) endByServer(id jsonrpc.ID) bool {
	t.mu.Lock()
	sub := t.byID[id.Raw()]
	if sub != nil {
		sub.serverEnded = true
	}
	t.mu.Unlock()
	if sub == nil {
		return false
	}
	sub.cancel()
	return true
}

// abandonedListen reports whether the server should be told that the
// listen request id was given up: not when the server itself ended it.
func (t *subscriptionTable) abandonedListen(id jsonrpc.ID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	sub := t.byID[id.Raw()]
	return sub == nil || !sub.serverEnded
}
