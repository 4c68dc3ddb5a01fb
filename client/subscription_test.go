package client

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// listenServer scripts subscriptions/listen on a fake server: it
// acknowledges every listen with the filter it asked for, tells the test the
// listen's ID, and then runs end (nil: wait to be cancelled).
func listenServer(t *testing.T, p *peer, ids chan<- jsonrpc.ID, end func(ctx context.Context, id jsonrpc.ID) (any, error)) {
	p.handlers[mcp.MethodSubscriptionsListen] = func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var lp mcp.SubscriptionsListenParams
		if err := json.Unmarshal(req.Params, &lp); err != nil {
			return nil, err
		}
		ack := &mcp.SubscriptionsAcknowledgedNotificationParams{Notifications: lp.Notifications}
		ack.Meta.Set(mcp.MetaSubscriptionID, req.ID)
		if err := p.conn.Notify(ctx, mcp.NotificationSubscriptionsAcknowledged, ack); err != nil {
			return nil, err
		}
		ids <- req.ID
		if end != nil {
			return end(ctx, req.ID)
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

// updated sends notifications/resources/updated for uri on subscription id
// (no subscription ID when id is the zero ID).
func updated(t *testing.T, p *peer, id jsonrpc.ID, uri string) {
	t.Helper()
	n := &mcp.ResourceUpdatedNotificationParams{URI: uri}
	if id.IsValid() {
		n.Meta.Set(mcp.MetaSubscriptionID, id)
	}
	if err := p.conn.Notify(testCtx(t), mcp.NotificationResourcesUpdated, n); err != nil {
		t.Fatal(err)
	}
}

// nextURI waits for the next resources/updated URI the client delivered.
func nextURI(t *testing.T, uris <-chan string) string {
	t.Helper()
	select {
	case u := <-uris:
		return u
	case <-time.After(testTimeout):
		t.Fatal("timed out waiting for notifications/resources/updated")
		return ""
	}
}

func TestListenDeliversTheSubscriptionsNotificationsUntilClosed(t *testing.T) {
	uris := make(chan string, 16)
	s, p := connect(t, &Options{OnResourceUpdated: func(_ context.Context, n *mcp.ResourceUpdatedNotificationParams) { uris <- n.URI }}, map[string]handlerFunc{})
	ids := make(chan jsonrpc.ID, 2)
	listenServer(t, p, ids, nil)

	filter := mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///a"}, ToolsListChanged: true}
	a, err := s.Listen(testCtx(t), filter)
	if err != nil {
		t.Fatal(err)
	}
	idA := <-ids
	if a.ID() != idA || len(a.Acknowledged().ResourceSubscriptions) != 1 || !a.Acknowledged().ToolsListChanged {
		t.Fatalf("subscription ID %s acknowledged %+v; want ID %s and the requested filter", a.ID(), a.Acknowledged(), idA)
	}
	b, err := s.Listen(testCtx(t), mcp.SubscriptionFilter{ResourceSubscriptions: []string{"file:///b"}})
	if err != nil {
		t.Fatal(err)
	}
	idB := <-ids

	updated(t, p, jsonrpc.StringID("nobody"), "file:///stray") // no such subscription: dropped
	updated(t, p, jsonrpc.ID{}, "file:///untagged")            // modern notifications must be tagged: dropped
	updated(t, p, idA, "file:///a")
	updated(t, p, idB, "file:///b")
	if got := nextURI(t, uris); got != "file:///a" {
		t.Fatalf("first delivered update is %s, want file:///a (the stray and untagged ones must be dropped)", got)
	}
	if got := nextURI(t, uris); got != "file:///b" {
		t.Fatalf("second delivered update is %s, want file:///b", got)
	}

	if err := a.Close(); err != nil || a.Err() != nil {
		t.Fatalf("Close = %v, Err = %v; want nil for a subscription the client closed", err, a.Err())
	}
	note := p.nextNote()
	var cp mcp.CancelledNotificationParams
	if json.Unmarshal(note.Params, &cp); note.Method != mcp.NotificationCancelled || cp.RequestID != idA {
		t.Fatalf("after Close the server got %s %s, want notifications/cancelled for %s", note.Method, note.Params, idA)
	}
	updated(t, p, idA, "file:///a-late") // after Close: dropped
	updated(t, p, idB, "file:///b2")
	if got := nextURI(t, uris); got != "file:///b2" {
		t.Fatalf("after closing a, the client delivered %s; want only b's file:///b2", got)
	}
	if b.Err() != nil {
		t.Errorf("b ended: %v", b.Err())
	}
}

func TestServerEndsASubscriptionWithNotificationsCancelled(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{})
	ids := make(chan jsonrpc.ID, 1)
	release := make(chan struct{})
	listenServer(t, p, ids, func(ctx context.Context, id jsonrpc.ID) (any, error) {
		p.conn.Notify(ctx, mcp.NotificationCancelled, &mcp.CancelledNotificationParams{RequestID: id, Reason: "shutting down"})
		<-release
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "gone")
	})
	sub, err := s.Listen(testCtx(t), mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	<-ids
	select {
	case <-sub.Done():
	case <-time.After(testTimeout):
		t.Fatal("the subscription did not end when the server cancelled it")
	}
	if !errors.Is(sub.Err(), ErrSubscriptionEnded) {
		t.Errorf("Err = %v, want ErrSubscriptionEnded", sub.Err())
	}
	close(release)
	p.drained(s)
	for _, m := range p.methods() {
		if m == mcp.NotificationCancelled {
			t.Error("the client cancelled a subscription the server had already ended")
		}
	}
}

func TestServerEndsASubscriptionGracefully(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{})
	ids := make(chan jsonrpc.ID, 1)
	listenServer(t, p, ids, func(_ context.Context, id jsonrpc.ID) (any, error) {
		res := &mcp.SubscriptionsListenResult{ResultType: mcp.ResultComplete}
		res.Meta.Set(mcp.MetaSubscriptionID, id)
		return res, nil
	})
	sub, err := s.Listen(testCtx(t), mcp.SubscriptionFilter{PromptsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	<-sub.Done()
	if !errors.Is(sub.Err(), ErrSubscriptionEnded) {
		t.Errorf("Err = %v, want ErrSubscriptionEnded", sub.Err())
	}
}

func TestListenFailsWhenTheServerRefuses(t *testing.T) {
	s, _ := connect(t, nil, map[string]handlerFunc{
		mcp.MethodSubscriptionsListen: func(context.Context, *jsonrpc.Request) (any, error) {
			return nil, mcp.MissingCapabilityError(mcp.ClientCapabilities{Extensions: map[string]mcp.JSONObject{mcp.ExtensionTasks: {}}})
		},
	})
	var e *jsonrpc.Error
	if _, err := s.Listen(testCtx(t), mcp.SubscriptionFilter{TaskIDs: []string{"t"}}); !errors.As(err, &e) || e.Code != mcp.CodeMissingRequiredClientCapability {
		t.Fatalf("Listen error = %v, want the server's -32021", err)
	}
}

func TestListenGivenUpBeforeTheAcknowledgementDoesNotCaptureTheNextOne(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{})
	var n atomic.Int32
	firstID, secondID := make(chan jsonrpc.ID, 1), make(chan jsonrpc.ID, 1)
	staleSent := make(chan struct{})
	ack := func(id jsonrpc.ID) {
		a := &mcp.SubscriptionsAcknowledgedNotificationParams{}
		a.Meta.Set(mcp.MetaSubscriptionID, id)
		p.conn.Notify(context.Background(), mcp.NotificationSubscriptionsAcknowledged, a)
	}
	p.handlers[mcp.MethodSubscriptionsListen] = func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if n.Add(1) == 1 {
			// The first listen is acknowledged only once the client has
			// given up on it and sent the second.
			firstID <- req.ID
			<-ctx.Done() // cancelled by the client's notifications/cancelled
			<-secondID
			ack(req.ID)
			close(staleSent)
			return nil, ctx.Err()
		}
		secondID <- req.ID
		<-staleSent
		ack(req.ID)
		secondID <- req.ID
		<-ctx.Done()
		return nil, ctx.Err()
	}
	ctx, cancel := context.WithCancel(testCtx(t))
	go func() {
		<-firstID
		cancel()
	}()
	if _, err := s.Listen(ctx, mcp.SubscriptionFilter{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("first Listen error = %v, want context.Canceled", err)
	}
	sub, err := s.Listen(testCtx(t), mcp.SubscriptionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if want := <-secondID; sub.ID() != want {
		t.Fatalf("the second subscription took ID %s, want %s: the first listen's late acknowledgement captured it", sub.ID(), want)
	}
}

// Each acknowledgement binds the listen its _meta names, whatever the order:
// two listens opened at once, acknowledged in the reverse order, each get
// their own.
func TestConcurrentListensAreAcknowledgedByTheirIDs(t *testing.T) {
	s, p := connect(t, nil, map[string]handlerFunc{})
	arrived := make(chan *jsonrpc.Request, 2)
	ackNow := make(chan struct{})
	p.handlers[mcp.MethodSubscriptionsListen] = func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		arrived <- req
		<-ctx.Done()
		return nil, ctx.Err()
	}
	go func() {
		first, second := <-arrived, <-arrived
		<-ackNow
		for _, req := range []*jsonrpc.Request{second, first} {
			var lp mcp.SubscriptionsListenParams
			json.Unmarshal(req.Params, &lp)
			a := &mcp.SubscriptionsAcknowledgedNotificationParams{Notifications: lp.Notifications}
			a.Meta.Set(mcp.MetaSubscriptionID, req.ID)
			p.conn.Notify(context.Background(), mcp.NotificationSubscriptionsAcknowledged, a)
		}
	}()
	type opened struct {
		sub *Subscription
		err error
	}
	results := make(chan opened, 2)
	for _, uri := range []string{"res://a", "res://b"} {
		go func() {
			sub, err := s.Listen(testCtx(t), mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}})
			results <- opened{sub, err}
		}()
	}
	close(ackNow)
	for range 2 {
		o := <-results
		if o.err != nil {
			t.Fatal(o.err)
		}
		defer o.sub.Close()
		if got := o.sub.Acknowledged().ResourceSubscriptions; len(got) != 1 {
			t.Fatalf("subscription %s acknowledged %v", o.sub.ID(), got)
		}
	}
}
