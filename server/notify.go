package server

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// hub fans change notifications out to whoever wants them: initialized legacy
// sessions whose capabilities allow them (and, for resources/updated, that
// subscribed to the URI), and modern subscriptions/listen streams whose filter
// asked for them. Posting never blocks: every receiver has an outbox that its
// own goroutine drains, and repeated list changes coalesce there.
type hub struct {
	mu        sync.Mutex
	sessions  map[*Session]struct{}
	byID      map[string]*Session
	listeners map[*listener]struct{}
	parents   map[<-chan struct{}]parentWatch // by the parent's Done channel (see watchParent)
	// cluster is the cluster the server joined (see cluster.go), or nil:
	// its shared sessions and listeners are then told through it.
	cluster atomic.Pointer[clusterLink]
}

func (h *hub) init() {
	h.sessions = make(map[*Session]struct{})
	h.byID = make(map[string]*Session)
	h.listeners = make(map[*listener]struct{})
	h.parents = make(map[<-chan struct{}]parentWatch)
}

func (h *hub) addSession(s *Session) {
	h.mu.Lock()
	h.sessions[s] = struct{}{}
	h.byID[s.id] = s
	h.mu.Unlock()
}

func (h *hub) removeSession(s *Session) {
	h.mu.Lock()
	delete(h.sessions, s)
	if h.byID[s.id] == s {
		delete(h.byID, s.id)
	}
	h.unwatchParentLocked(s)
	h.mu.Unlock()
}

// session returns the live session with the ID, or nil.
func (h *hub) session(id string) *Session {
	if id == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id]
}

func (h *hub) addListener(l *listener) {
	h.mu.Lock()
	h.listeners[l] = struct{}{}
	h.mu.Unlock()
}

func (h *hub) removeListener(l *listener) {
	h.mu.Lock()
	delete(h.listeners, l)
	h.mu.Unlock()
}

// listChanged tells everyone who wants it that the list of f changed: in a
// cluster, the sessions it does not share here, and the cluster the rest.
func (h *hub) listChanged(f feature) {
	cl := h.cluster.Load()
	if cl != nil {
		cl.out.post(f, "")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.sessions {
		if (cl == nil || s.shared() == nil) && s.wantsListChanged(f) {
			s.postChange(f, "")
		}
	}
	if cl != nil {
		return
	}
	for l := range h.listeners {
		if l.wantsListChanged(f) {
			l.out.post(f, "")
		}
	}
}

// resourceUpdated tells everyone here subscribed to uri that it changed;
// in a cluster, it leaves out the shared sessions, which the cluster
// tells.
func (h *hub) resourceUpdated(uri string, clustered bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.sessions {
		if (!clustered || s.shared() == nil) && s.subscribed(uri) {
			s.postChange(featureNone, uri)
		}
	}
	for l := range h.listeners {
		if slices.Contains(l.filter.ResourceSubscriptions, uri) {
			l.out.post(featureNone, uri)
		}
	}
}

// outbox holds the change notifications one receiver has yet to send: a set
// of changed lists (coalesced) and the updated resource URIs, in order and
// without repeats. Its receiver learns of them either from wake, which it
// watches, or by having flush started on a goroutine of its own while
// anything is pending, so that an idle receiver holds no goroutine.
type outbox struct {
	mu       sync.Mutex
	changed  [featureResources + 1]bool
	uris     []string
	wake     chan struct{} // holds a token while something is pending; nil with flush
	flush    func()        // sends what take returns until it returns nothing
	flushing bool          // flush runs: it has not yet found the outbox empty
}

// newOutbox returns an outbox whose receiver watches wake.
func newOutbox() *outbox { return &outbox{wake: make(chan struct{}, 1)} }

// newFlushingOutbox returns an outbox that starts flush on a new goroutine
// when a change is posted and no flush is running; flush must call take
// until it returns nothing.
func newFlushingOutbox(flush func()) *outbox { return &outbox{flush: flush} }

// post records a change: a list (f != featureNone) or a resource (uri != "").
func (o *outbox) post(f feature, uri string) {
	o.mu.Lock()
	if f != featureNone {
		o.changed[f] = true
	}
	if uri != "" && !slices.Contains(o.uris, uri) {
		o.uris = append(o.uris, uri)
	}
	start := o.flush != nil && !o.flushing
	o.flushing = o.flush != nil
	o.mu.Unlock()
	if start {
		go o.flush()
		return
	}
	if o.wake != nil {
		select {
		case o.wake <- struct{}{}:
		default:
		}
	}
}

// take returns the pending notifications, as (method, params) pairs, and
// empties the outbox. Returning nothing ends a running flush.
func (o *outbox) take() []outgoing {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []outgoing
	for f, changed := range o.changed {
		if changed {
			out = append(out, outgoing{method: listChangedMethod(feature(f))})
		}
	}
	for _, uri := range o.uris {
		out = append(out, outgoing{method: mcp.NotificationResourcesUpdated, uri: uri})
	}
	o.changed = [featureResources + 1]bool{}
	o.uris = nil
	if len(out) == 0 {
		o.flushing = false
	}
	return out
}

// outgoing is one change notification waiting to be sent.
type outgoing struct {
	method string
	uri    string // for resources/updated
}

// message builds the notification, with _meta (nil: none).
func (g outgoing) message(meta mcp.Meta) (*jsonrpc.Request, error) {
	if g.uri != "" {
		return notification(g.method, &mcp.ResourceUpdatedNotificationParams{
			NotificationParams: mcp.NotificationParams{Meta: meta}, URI: g.uri})
	}
	if meta == nil {
		return &jsonrpc.Request{Method: g.method}, nil
	}
	return notification(g.method, &mcp.NotificationParams{Meta: meta})
}

// listChangedMethod names the list_changed notification of f.
func listChangedMethod(f feature) string {
	switch f {
	case featureTools:
		return mcp.NotificationToolsListChanged
	case featurePrompts:
		return mcp.NotificationPromptsListChanged
	}
	return mcp.NotificationResourcesListChanged
}

// notification encodes a notification message.
func notification(method string, params any) (*jsonrpc.Request, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("server: encoding the params of %s: %w", method, err)
	}
	return &jsonrpc.Request{Method: method, Params: raw}, nil
}
