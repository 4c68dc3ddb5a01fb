package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

// changes collects the change notifications a client receives, in order.
type changes struct {
	events chan string
}

func newChanges() *changes { return &changes{events: make(chan string, 64)} }

// options returns client options whose callbacks feed c.
func (c *changes) options() *client.Options {
	return &client.Options{
		OnToolsListChanged:     func(context.Context, *mcp.ToolListChangedNotificationParams) { c.events <- "tools" },
		OnPromptsListChanged:   func(context.Context, *mcp.PromptListChangedNotificationParams) { c.events <- "prompts" },
		OnResourcesListChanged: func(context.Context, *mcp.ResourceListChangedNotificationParams) { c.events <- "resources" },
		OnResourceUpdated: func(_ context.Context, p *mcp.ResourceUpdatedNotificationParams) {
			c.events <- "updated " + p.URI
		},
	}
}

// next waits for the next change notification.
func (c *changes) next(t *testing.T) string {
	t.Helper()
	select {
	case e := <-c.events:
		return e
	case <-time.After(testTimeout):
		t.Fatal("timed out waiting for a change notification")
		return ""
	}
}

// listen opens a subscription on a modern session and checks the
// acknowledgement.
func listen(t *testing.T, s *client.Session, filter mcp.SubscriptionFilter) *client.Subscription {
	t.Helper()
	sub, err := s.Listen(ctxFor(t), filter)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() { sub.Close() })
	if got, want := fmt.Sprint(sub.Acknowledged()), fmt.Sprint(filter); got != want {
		t.Errorf("acknowledged %s, want all of %s", got, want)
	}
	return sub
}

func TestListChangedNotifications(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		c := newChanges()
		s, tp := e.connect(t, c.options())
		var sub *client.Subscription
		if s.IsModern() {
			sub = listen(t, s, mcp.SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true})
		}
		for _, kind := range []string{"tools", "prompts", "resources"} {
			callTool(t, s, "add_"+kind[:len(kind)-1], `{}`)
			if got := c.next(t); got != kind {
				t.Fatalf("after adding to the %s the client was told %q", kind, got)
			}
		}
		found := false
		for tool, err := range s.Tools(ctxFor(t)) {
			if err != nil {
				t.Fatal(err)
			}
			found = found || tool.Name == "extra"
		}
		if !found {
			t.Error("the added tool is not listed")
		}
		if sub == nil {
			return
		}
		// Every notification of the stream names the subscription.
		for _, r := range tp.received(mcp.NotificationToolsListChanged) {
			var p mcp.NotificationParams
			json.Unmarshal(r.Params, &p)
			if id, err := p.Meta.SubscriptionID(); err != nil || id != sub.ID() {
				t.Errorf("tools/list_changed names subscription %v (%v), want %s", id, err, sub.ID())
			}
		}
		if err := sub.Close(); err != nil || sub.Err() != nil {
			t.Fatalf("Close = %v, Err = %v", err, sub.Err())
		}
		sent := tp.sent(mcp.NotificationCancelled)
		var cp mcp.CancelledNotificationParams
		if len(sent) != 1 || json.Unmarshal(sent[0].Params, &cp) != nil || cp.RequestID != sub.ID() {
			t.Fatalf("closing the subscription sent %d notifications/cancelled (%+v), want one for %s", len(sent), cp, sub.ID())
		}
		callTool(t, s, "add_tool", `{}`)
		s.Close() // whatever the server still sent has been read or never will be
		select {
		case got := <-c.events:
			t.Errorf("after the subscription was closed the client was told %q", got)
		default:
		}
	})
}

func TestResourceSubscriptions(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		c := newChanges()
		s, _ := e.connect(t, c.options())
		ctx := ctxFor(t)
		subscribe := func(uri string) func() {
			if s.IsModern() {
				sub := listen(t, s, mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}})
				return func() { sub.Close() }
			}
			if err := s.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := s.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
					t.Fatal(err)
				}
			}
		}
		unsubscribe := subscribe("res://text")
		// Updates to one client are delivered in order, so an update to a
		// resource it did not subscribe to would arrive first.
		callTool(t, s, "touch", `{"uri":"res://blob"}`)
		callTool(t, s, "touch", `{"uri":"res://text"}`)
		if got := c.next(t); got != "updated res://text" {
			t.Fatalf("first update %q, want res://text only", got)
		}
		unsubscribe()
		subscribe("res://blob")
		callTool(t, s, "touch", `{"uri":"res://text"}`)
		callTool(t, s, "touch", `{"uri":"res://blob"}`)
		if got := c.next(t); got != "updated res://blob" {
			t.Fatalf("after moving the subscription the first update is %q, want res://blob only", got)
		}
	})
}
