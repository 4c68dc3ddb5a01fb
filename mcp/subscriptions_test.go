package mcp

import "testing"

func TestSubscriptionsListenExamples(t *testing.T) {
	// Spec example: SubscriptionsListenRequest params.
	p := roundTrip[SubscriptionsListenParams](t, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
	  "io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}},
	  "notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///project/config.json"]}}`, "")
	if !p.Notifications.ToolsListChanged || p.Notifications.PromptsListChanged || len(p.Notifications.ResourceSubscriptions) != 1 {
		t.Errorf("filter = %+v", p.Notifications)
	}
	// Tasks extension filter.
	p = roundTrip[SubscriptionsListenParams](t, `{"notifications":{"taskIds":["786512e2-9e0d-44bd-8f29-789f320fe840"]}}`, "")
	if len(p.Notifications.TaskIDs) != 1 {
		t.Errorf("taskIds = %v", p.Notifications.TaskIDs)
	}
	// An empty filter is still an object: the member is required.
	assertSameJSON(t, encode(t, &SubscriptionsListenParams{}), `{"notifications":{}}`)

	// Spec example: the acknowledgement, tagged with the subscription.
	a := roundTrip[SubscriptionsAcknowledgedNotificationParams](t, `{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"},
	  "notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///project/config.json"]}}`, "")
	if id, err := a.Meta.SubscriptionID(); err != nil || id.Raw() != `"listen-1"` {
		t.Errorf("subscription id = %s, %v", id, err)
	}
	// Spec example: the graceful close.
	roundTrip[SubscriptionsListenResult](t, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}`, "")
}

func TestListChangedAndUpdatedNotifications(t *testing.T) {
	for _, wire := range []string{
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}`,
		`{}`,
	} {
		roundTrip[ToolListChangedNotificationParams](t, wire, "")
		roundTrip[PromptListChangedNotificationParams](t, wire, "")
		roundTrip[ResourceListChangedNotificationParams](t, wire, "")
		roundTrip[RootsListChangedNotificationParams](t, wire, "")
		roundTrip[InitializedNotificationParams](t, wire, "")
	}
	u := roundTrip[ResourceUpdatedNotificationParams](t, `{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"},"uri":"file:///project/src/main.rs"}`, "")
	if u.URI != "file:///project/src/main.rs" {
		t.Errorf("uri = %q", u.URI)
	}
}
