package server

import (
	"context"

	"github.com/weftmcp/weft/mcp"
)

// subscribe answers resources/subscribe (legacy): the session gets
// notifications/resources/updated for the URI from now on.
func (s *Server) subscribe(ctx context.Context, r *Request, p *mcp.SubscribeParams) (result, error) {
	if p.URI == "" {
		return nil, invalidParams("resources/subscribe needs a uri")
	}
	ss := r.session
	if sh := ss.shared(); sh != nil {
		if err := sh.Subscribe(ctx, p.URI); err != nil {
			return nil, storeError(err)
		}
	}
	ss.mu.Lock()
	u := ss.useLocked()
	if u.subs == nil {
		u.subs = make(map[string]bool)
	}
	u.subs[p.URI] = true
	ss.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// unsubscribe answers resources/unsubscribe (legacy).
func (s *Server) unsubscribe(ctx context.Context, r *Request, p *mcp.UnsubscribeParams) (result, error) {
	if p.URI == "" {
		return nil, invalidParams("resources/unsubscribe needs a uri")
	}
	ss := r.session
	if sh := ss.shared(); sh != nil {
		if err := sh.Unsubscribe(ctx, p.URI); err != nil {
			return nil, storeError(err)
		}
	}
	ss.mu.Lock()
	if ss.used != nil {
		delete(ss.used.subs, p.URI)
	}
	ss.mu.Unlock()
	return &mcp.EmptyResult{}, nil
}

// ResourceUpdated tells every client subscribed to uri that the resource
// changed: legacy sessions that called resources/subscribe and modern
// subscriptions/listen streams whose resourceSubscriptions name it. Delivery
// is asynchronous and in order per client; it returns ctx's error, without
// notifying anyone, if ctx has already ended.
//
// When the server's HTTP Handler routes messages between instances (see
// JoinCluster), the legacy sessions subscribed on any instance are told,
// wherever their GET streams are: the call then reads the subscribers
// from the session store, a page at a time, and queues the notification
// for each (a store write and a bus signal), and it returns the first
// failure. Modern listen streams are told by their own instance only.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	cl := s.hub.cluster.Load()
	s.hub.resourceUpdated(uri, cl != nil)
	if cl == nil {
		return nil
	}
	return cl.resourceUpdated(ctx, uri)
}
