package mcp

// SubscriptionFilter is the set of notifications a client opts in to on a
// subscriptions/listen stream (2026-07-28), and in the acknowledgement the
// subset the server agreed to. The server sends nothing that was not asked for.
type SubscriptionFilter struct {
	ToolsListChanged     bool `json:"toolsListChanged,omitzero"`
	PromptsListChanged   bool `json:"promptsListChanged,omitzero"`
	ResourcesListChanged bool `json:"resourcesListChanged,omitzero"`
	// ResourceSubscriptions are resource URIs to receive
	// notifications/resources/updated for.
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs are tasks to receive notifications/tasks for (tasks extension;
	// a client that did not declare the extension gets -32021).
	TaskIDs []string `json:"taskIds,omitempty"`
}

// SubscriptionsListenParams are the params of subscriptions/listen.
type SubscriptionsListenParams struct {
	RequestParams
	Notifications SubscriptionFilter `json:"notifications"`
}

// SubscriptionsListenResult ends a subscriptions/listen stream gracefully. Its
// _meta must carry MetaSubscriptionID, the listen request's ID.
type SubscriptionsListenResult = Result

// SubscriptionsAcknowledgedNotificationParams are the params of
// notifications/subscriptions/acknowledged, the first message of a stream.
type SubscriptionsAcknowledgedNotificationParams struct {
	NotificationParams
	Notifications SubscriptionFilter `json:"notifications"`
}
