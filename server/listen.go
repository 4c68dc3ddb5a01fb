package server

import (
	"context"
	stdjson "encoding/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// listener is one open subscriptions/listen stream: the filter the server
// honours and the changes waiting to be sent on it.
type listener struct {
	filter mcp.SubscriptionFilter // what the server honours of what was asked
	out    *outbox
	tasks  *taskFeed // changes of the tasks in filter.TaskIDs
}

// wantsListChanged reports whether the listener asked for list changes of k.
func (l *listener) wantsListChanged(k feature) bool {
	f := l.filter
	switch k {
	case featureTools:
		return f.ToolsListChanged
	case featurePrompts:
		return f.PromptsListChanged
	case featureResources:
		return f.ResourcesListChanged
	}
	return false
}

// listen serves subscriptions/listen (modern): it acknowledges the subset of
// the filter the server honours, then sends every matching change, each
// tagged with the listen request's id as subscription id, until ctx ends
// (the client cancelled or went away, or the session is closing), and then
// returns the closing result.
// taskIds (tasks extension) need the extension declared on this request
// (-32021 otherwise); see task_listen.go.
func (s *Server) listen(ctx context.Context, r *Request, p *mcp.SubscriptionsListenParams) (result, error) {
	want := p.Notifications
	var honoured mcp.SubscriptionFilter
	if s.serves(featureTools) {
		honoured.ToolsListChanged = want.ToolsListChanged
	}
	if s.serves(featurePrompts) {
		honoured.PromptsListChanged = want.PromptsListChanged
	}
	if s.serves(featureResources) {
		honoured.ResourcesListChanged = want.ResourcesListChanged
		honoured.ResourceSubscriptions = want.ResourceSubscriptions
	}
	if len(want.TaskIDs) > 0 && s.serves(featureTasks) {
		if err := s.extensionGate(r); err != nil {
			return nil, err
		}
		honoured.TaskIDs = s.acceptTaskIDs(ctx, r.principal, want.TaskIDs)
	}
	subID := stdjson.RawMessage(r.id.Raw())
	meta := mcp.Meta{mcp.MetaSubscriptionID: subID}

	l := &listener{filter: honoured, out: newOutbox(), tasks: newTaskFeed()}
	s.hub.addListener(l) // before the acknowledgement, so no change in between is lost
	defer s.hub.removeListener(l)
	wctx, stopWatching := context.WithCancel(ctx)
	waitWatchers := s.watchTasks(wctx, r.principal, honoured.TaskIDs, l.tasks)
	defer func() {
		stopWatching()
		waitWatchers()
	}()

	ack, err := notification(mcp.NotificationSubscriptionsAcknowledged, &mcp.SubscriptionsAcknowledgedNotificationParams{
		NotificationParams: mcp.NotificationParams{Meta: meta}, Notifications: honoured})
	if err != nil {
		return nil, err
	}
	if err := r.send(ctx, ack); err != nil {
		return nil, err
	}
	for {
		var msgs []*jsonrpc.Request
		select {
		case <-l.out.wake:
			for _, g := range l.out.take() {
				msg, err := g.message(meta)
				if err != nil {
					return nil, err
				}
				msgs = append(msgs, msg)
			}
		case <-l.tasks.wake:
			for _, t := range l.tasks.take() {
				msg, err := taskNotification(t, meta)
				if err != nil {
					return nil, err
				}
				msgs = append(msgs, msg)
			}
		case <-ctx.Done():
			return closing(meta), nil
		}
		if ctx.Err() != nil { // ended meanwhile: select chose among ready cases at random
			return closing(meta), nil
		}
		for _, msg := range msgs {
			if err := r.send(ctx, msg); err != nil {
				if ctx.Err() != nil {
					return closing(meta), nil
				}
				return nil, err
			}
		}
	}
}

// closing is the result that ends a listen stream gracefully.
func closing(meta mcp.Meta) result {
	return &mcp.SubscriptionsListenResult{Meta: meta}
}
