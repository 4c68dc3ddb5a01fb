package streamable

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
)

// ClusterMember is implemented by a Server that tells the sessions of a
// whole cluster of instances of changes (resources/updated, list_changed),
// as *server.Server does. NewHandler, when the Handler routes messages
// between instances (HandlerOptions.Sessions, Messages and Bus), joins
// the Server to that cluster.
type ClusterMember interface {
	JoinCluster(c transport.Cluster)
}

// cluster is a routing Handler's transport.Cluster.
type cluster struct{ r *router }

var _ transport.Cluster = cluster{}

// announceKind is the kind of the bus signals of Cluster.Announce.
const announceKind tasks.SignalKind = "cluster-topic"

// topicSignal is the bus signal ID of an announced topic.
func topicSignal(topic string) string { return "weft-cluster/" + topic }

// Subscribers implements transport.Cluster.
func (c cluster) Subscribers(ctx context.Context, uri, after string, limit int) ([]string, error) {
	return c.r.h.opts.Sessions.Subscribers(ctx, uri, after, limit)
}

// Notify implements transport.Cluster: the message goes to the session's
// ToClient box, as a notification a handler sends outside any request.
func (c cluster) Notify(ctx context.Context, session string, msg *jsonrpc.Request) error {
	if !msg.IsNotification() {
		return fmt.Errorf("streamable: Notify sends notifications, not requests such as %s", msg.Method)
	}
	return c.r.post(ctx, session, sessions.ToClient, msg)
}

// HoldsStream implements transport.Cluster: the session's GET stream is
// attached here, or was within readerLease and has not ended, its client
// perhaps reconnecting (see heldLately).
func (c cluster) HoldsStream(session string) bool {
	s := c.r.h.sessions.lookup(session)
	if s == nil {
		return false
	}
	s.mu.Lock()
	st := s.get
	s.mu.Unlock()
	if st == nil {
		return false
	}
	st.mu.Lock()
	attached, ended := st.w != nil, st.complete
	st.mu.Unlock()
	return !ended && (attached || c.r.heldLately(s, c.r.h.sessions.now()))
}

// Announce implements transport.Cluster.
func (c cluster) Announce(ctx context.Context, topic string) error {
	if err := c.r.bus.Publish(ctx, tasks.Signal{TaskID: topicSignal(topic), Kind: announceKind}); err != nil {
		return fmt.Errorf("streamable: announcing %s to the other instances: %w", topic, err)
	}
	return nil
}

// Follow implements transport.Cluster.
func (c cluster) Follow(ctx context.Context, topic string, fn func()) error {
	sub, err := c.r.bus.Subscribe(ctx, topicSignal(topic))
	if err != nil {
		return fmt.Errorf("streamable: following %s from the other instances: %w", topic, err)
	}
	stop := context.AfterFunc(c.r.h.ctx, func() { sub.Close() })
	go func() {
		defer stop()
		for sig := range sub.Signals() {
			if sig.Kind == announceKind {
				fn()
			}
		}
	}()
	return nil
}
