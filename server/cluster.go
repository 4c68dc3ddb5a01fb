package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport"
)

// A Server whose HTTP Handler routes messages between instances (a
// streamable.Handler with a shared session store, message log and bus)
// is joined to the cluster of instances on them (JoinCluster), and tells
// the whole cluster's legacy sessions of changes:
//
//   - resources/updated goes to each session the store lists as subscribed
//     to the URI (Store.Subscribers, a page at a time), through its
//     routed messages, which the instance holding its GET stream delivers;
//   - a list change is announced once to every instance, and each tells
//     the sessions whose GET streams it holds, and its subscriptions/listen
//     streams.
//
// The hub then leaves the shared sessions it holds to these paths, so that
// none is told twice.

// subscriberPage is how many subscribers of a URI ResourceUpdated reads
// from the store at a time.
const subscriberPage = 100

// announceTimeout bounds the announcement of a list change.
const announceTimeout = 10 * time.Second

// clusterLink is the cluster a server joined.
type clusterLink struct {
	c      transport.Cluster
	out    *outbox // list changes to announce, by a goroutine of their own while pending
	logger *slog.Logger
}

// JoinCluster makes the server tell the sessions of every instance of c
// of changes, as well as its own: streamable.NewHandler calls it for a
// Handler that routes messages between instances. A server serves one
// cluster; joining another replaces it.
func (s *Server) JoinCluster(c transport.Cluster) {
	cl := &clusterLink{c: c, logger: s.logger}
	cl.out = newFlushingOutbox(cl.announce)
	ctx, cancel := context.WithTimeout(context.Background(), announceTimeout)
	defer cancel()
	for _, f := range []feature{featureTools, featurePrompts, featureResources} {
		if err := c.Follow(ctx, listChangedMethod(f), func() { s.hub.clusterListChanged(f) }); err != nil {
			s.logger.Warn("server: the list changes of other instances will not reach this one's sessions", "list", listChangedMethod(f), "error", err)
		}
	}
	s.hub.cluster.Store(cl)
}

// announce tells the cluster of the list changes pending in cl.out.
func (cl *clusterLink) announce() {
	for {
		pending := cl.out.take()
		if len(pending) == 0 {
			return
		}
		for _, g := range pending {
			ctx, cancel := context.WithTimeout(context.Background(), announceTimeout)
			if err := cl.c.Announce(ctx, g.method); err != nil {
				cl.logger.Warn("server: could not tell the other instances that a list changed; their sessions miss this change", "list", g.method, "error", err)
			}
			cancel()
		}
	}
}

// clusterListChanged tells the shared sessions whose GET streams this
// instance holds, and its subscriptions/listen streams, that the list of f
// changed somewhere in the cluster.
func (h *hub) clusterListChanged(f feature) {
	cl := h.cluster.Load()
	if cl == nil {
		return
	}
	var shared []*Session
	h.mu.Lock()
	for s := range h.sessions {
		if s.shared() != nil {
			shared = append(shared, s)
		}
	}
	for l := range h.listeners {
		if l.wantsListChanged(f) {
			l.out.post(f, "")
		}
	}
	h.mu.Unlock()
	// Asked without the hub's lock: the transport's table has its own.
	for _, s := range shared {
		if s.wantsListChanged(f) && cl.c.HoldsStream(s.id) {
			s.postChange(f, "")
		}
	}
}

// resourceUpdated tells every session of the cluster subscribed to uri
// that it changed, a page of subscribers at a time. It goes on past a
// session it could not tell, and reports the first failure.
func (cl *clusterLink) resourceUpdated(ctx context.Context, uri string) error {
	msg, err := outgoing{method: mcp.NotificationResourcesUpdated, uri: uri}.message(nil)
	if err != nil {
		return err
	}
	var failed error
	for after := ""; ; {
		ids, err := cl.c.Subscribers(ctx, uri, after, subscriberPage)
		if err != nil {
			return errors.Join(failed, fmt.Errorf("server: reading the subscribers of %s from the session store: %w", uri, err))
		}
		for _, id := range ids {
			if err := cl.c.Notify(ctx, id, msg); err != nil && failed == nil {
				failed = fmt.Errorf("server: telling session %s that %s changed: %w", id, uri, err)
			}
			after = id
		}
		if len(ids) < subscriberPage {
			return failed
		}
	}
}
