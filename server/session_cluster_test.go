package server

import (
	"context"
	"strings"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

// In a cluster of routing instances (see session_routed_test.go), change
// notifications reach every session that asked for them, on whichever
// instance holds its GET stream, from an instance that never served it,
// and each reaches it once.

// clusterSession starts a session on B, subscribed there to test://static
// and test://other, with its GET stream on C, and returns its headers and
// GET stream's events.
func clusterSession(t *testing.T, cl *routedCluster) (map[string]string, <-chan sseEvent) {
	t.Helper()
	hdr := initializeOn(t, cl.b.url)
	post(t, cl.b.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	for i, uri := range []string{"test://static", "test://other"} {
		body := `{"jsonrpc":"2.0","id":` + string(rune('2'+i)) + `,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`
		if msg := nextMessage(t, messages(t, post(t, cl.b.url, body, hdr))); member(t, msg, "result") != "{}" {
			t.Fatalf("resources/subscribe of %s on B: %s", uri, msg)
		}
	}
	return hdr, openGet(t, cl.c.url, hdr, "")
}

// expectNotification waits for the next event of a GET stream and fails
// unless it is the notification named, with the URI given ("" for none).
func expectNotification(t *testing.T, get <-chan sseEvent, method, uri, what string) {
	t.Helper()
	ev := nextEvent(t, get)
	data := []byte(ev.data)
	if member(t, data, "method") != `"`+method+`"` || uri != "" && member(t, data, "params", "uri") != `"`+uri+`"` {
		t.Fatalf("%s: the GET stream on C carried %s, want %s %s", what, ev.data, method, uri)
	}
}

func TestClusterSessions_ResourceUpdatedFromAnInstanceThatNeverServedTheSession(t *testing.T) {
	cl := startRoutedCluster(t)
	_, get := clusterSession(t, cl)
	if err := cl.a.srv.ResourceUpdated(context.Background(), "test://static"); err != nil {
		t.Fatalf("ResourceUpdated on A: %v", err)
	}
	expectNotification(t, get, mcp.NotificationResourcesUpdated, "test://static", "the update told through A, which never served the session")
	// B and C hold the session (B served the subscribe, C holds the GET
	// stream): an update told through either reaches it once, so the next
	// event is the next update.
	for _, in := range []*instance{cl.b, cl.c} {
		for _, uri := range []string{"test://static", "test://other"} {
			if err := in.srv.ResourceUpdated(context.Background(), uri); err != nil {
				t.Fatalf("ResourceUpdated: %v", err)
			}
			expectNotification(t, get, mcp.NotificationResourcesUpdated, uri, "an update told through an instance holding the session")
		}
	}
	// A URI nobody subscribed to reaches nobody: the next event is the
	// next update.
	for _, uri := range []string{"test://nobody", "test://other"} {
		if err := cl.a.srv.ResourceUpdated(context.Background(), uri); err != nil {
			t.Fatalf("ResourceUpdated: %v", err)
		}
	}
	expectNotification(t, get, mcp.NotificationResourcesUpdated, "test://other", "after an update of a URI nobody subscribed to")
}

func TestClusterSessions_AnUnsubscribedOrDeletedSessionIsNotTold(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr, get := clusterSession(t, cl)
	if msg := nextMessage(t, messages(t, post(t, cl.c.url, `{"jsonrpc":"2.0","id":9,"method":"resources/unsubscribe","params":{"uri":"test://static"}}`, hdr))); member(t, msg, "result") != "{}" {
		t.Fatalf("resources/unsubscribe on C: %s", msg)
	}
	for _, uri := range []string{"test://static", "test://other"} {
		if err := cl.a.srv.ResourceUpdated(context.Background(), uri); err != nil {
			t.Fatalf("ResourceUpdated: %v", err)
		}
	}
	expectNotification(t, get, mcp.NotificationResourcesUpdated, "test://other", "after unsubscribing from test://static through C")
	deleteSession(t, cl.b.url, hdr)
	ids, err := cl.store.Subscribers(context.Background(), "test://other", "", 10)
	if err != nil || len(ids) != 0 {
		t.Fatalf("after DELETE the store lists subscribers %v (%v), want none", ids, err)
	}
}

func TestClusterSessions_AListChangeReachesTheGetStreamOnce(t *testing.T) {
	cl := startRoutedCluster(t)
	_, get := clusterSession(t, cl)
	for _, in := range []*instance{cl.a, cl.b, cl.c} {
		// A never served the session; B served it; C holds its stream.
		AddTool(in.srv, &mcp.Tool{Name: "new-" + strings.TrimPrefix(in.url, "http://")}, func(context.Context, *Request, struct{}) (string, error) {
			return "", nil
		})
		expectNotification(t, get, mcp.NotificationToolsListChanged, "", "a tool added on an instance of the cluster")
		// The next event is this update, not a second list_changed.
		if err := cl.a.srv.ResourceUpdated(context.Background(), "test://static"); err != nil {
			t.Fatalf("ResourceUpdated: %v", err)
		}
		expectNotification(t, get, mcp.NotificationResourcesUpdated, "test://static", "after a tools/list_changed")
	}
	cl.a.srv.RemovePrompts("none-such") // removes nothing: no notification
	cl.a.srv.AddResource(&mcp.Resource{URI: "test://new", Name: "new"}, staticText("new"))
	expectNotification(t, get, mcp.NotificationResourcesListChanged, "", "a resource added on A")
}
