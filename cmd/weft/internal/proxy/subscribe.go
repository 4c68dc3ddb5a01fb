package proxy

import (
	"context"
	"fmt"
	"sync"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// subscriptions are the resources the proxy subscribed to on the wrapped
// server on behalf of its clients. A subscription lasts as long as the
// wrapped session: a client's unsubscribe is not passed on, since another
// client may still want the resource, and updates nobody here wants are
// dropped by the proxy's server.
type subscriptions struct {
	mu   sync.Mutex // held across the subscribe, so each URI is asked once
	uris map[string]bool
	// listen is the one subscriptions/listen stream that names every URI,
	// on a modern wrapped session; nil on a legacy one.
	listen *client.Subscription
}

// forwardSubscriptions is the proxy server's middleware that subscribes
// on the wrapped server to the resources a client subscribes to
// (resources/subscribe, or the resourceSubscriptions of a modern
// subscriptions/listen) before the proxy's server records the client's
// subscription.
func (p *Proxy) forwardSubscriptions(next server.MethodHandler) server.MethodHandler {
	return func(ctx context.Context, r *server.Request) (server.Result, error) {
		var uris []string
		switch params := r.DecodedParams().(type) {
		case *mcp.SubscribeParams:
			uris = []string{params.URI}
		case *mcp.SubscriptionsListenParams:
			uris = params.Notifications.ResourceSubscriptions
		}
		for _, uri := range uris {
			if err := p.subscribeWrapped(ctx, uri); err != nil {
				return nil, err
			}
		}
		return next(ctx, r)
	}
}

// subscribeWrapped subscribes to uri on the wrapped server, once: with
// resources/subscribe on a legacy session; on a modern one, by opening a
// subscriptions/listen stream that names uri and every URI before it,
// which then takes the place of the previous stream. A wrapped server that
// announces no resource subscriptions is not asked.
func (p *Proxy) subscribeWrapped(ctx context.Context, uri string) error {
	if caps := p.wrapped.ServerCapabilities(); uri == "" || caps.Resources == nil || !caps.Resources.Subscribe {
		return nil
	}
	p.subs.mu.Lock()
	defer p.subs.mu.Unlock()
	if p.subs.uris[uri] {
		return nil
	}
	var err error
	if p.wrapped.IsModern() {
		err = p.relisten(ctx, uri)
	} else {
		err = p.wrapped.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	}
	if err != nil {
		return fmt.Errorf("weft proxy: the wrapped server refused a subscription to %s, so its changes cannot be passed on: %w", uri, err)
	}
	if p.subs.uris == nil {
		p.subs.uris = map[string]bool{}
	}
	p.subs.uris[uri] = true
	return nil
}

// relisten opens the listen stream for every URI subscribed to and uri,
// and closes the one it replaces; p.subs.mu is held.
func (p *Proxy) relisten(ctx context.Context, uri string) error {
	uris := []string{uri}
	for u := range p.subs.uris {
		uris = append(uris, u)
	}
	sub, err := p.wrapped.Listen(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: uris})
	if err != nil {
		return err
	}
	if p.subs.listen != nil {
		p.subs.listen.Close()
	}
	p.subs.listen = sub
	return nil
}

// resourceUpdated passes the wrapped server's notifications/resources/updated
// on to the proxy's clients subscribed to the resource. One that arrives
// before Connect has ended is dropped: no client can have subscribed yet,
// and waiting would hold up the wrapped session's answers Connect needs.
func (p *Proxy) resourceUpdated(ctx context.Context, params *mcp.ResourceUpdatedNotificationParams) {
	select {
	case <-p.connected:
	default:
		return
	}
	if !p.ok {
		return
	}
	if err := p.srv.ResourceUpdated(ctx, params.URI); err != nil {
		p.logger.Warn("proxy: a change of the wrapped server's resource could not be passed on", "uri", params.URI, "error", err)
	}
}
