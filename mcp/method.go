package mcp

// Request methods.
const (
	MethodInitialize             = "initialize"               // legacy handshake, client → server
	MethodPing                   = "ping"                     // legacy, either direction
	MethodServerDiscover         = "server/discover"          // modern, client → server
	MethodSubscriptionsListen    = "subscriptions/listen"     // modern, client → server
	MethodToolsList              = "tools/list"               // client → server
	MethodToolsCall              = "tools/call"               // client → server
	MethodPromptsList            = "prompts/list"             // client → server
	MethodPromptsGet             = "prompts/get"              // client → server
	MethodResourcesList          = "resources/list"           // client → server
	MethodResourcesTemplatesList = "resources/templates/list" // client → server
	MethodResourcesRead          = "resources/read"           // client → server
	MethodResourcesSubscribe     = "resources/subscribe"      // legacy, client → server
	MethodResourcesUnsubscribe   = "resources/unsubscribe"    // legacy, client → server
	MethodCompletionComplete     = "completion/complete"      // client → server
	MethodLoggingSetLevel        = "logging/setLevel"         // legacy, client → server
	MethodSamplingCreateMessage  = "sampling/createMessage"   // server → client (modern: input request only)
	MethodElicitationCreate      = "elicitation/create"       // server → client (modern: input request only)
	MethodRootsList              = "roots/list"               // server → client (modern: input request only)
	MethodTasksGet               = "tasks/get"                // 2025-11-25 core and the tasks extension
	MethodTasksResult            = "tasks/result"             // 2025-11-25 only
	MethodTasksList              = "tasks/list"               // 2025-11-25 only
	MethodTasksCancel            = "tasks/cancel"             // 2025-11-25 core and the tasks extension
	MethodTasksUpdate            = "tasks/update"             // tasks extension only
)

// Notification methods.
const (
	NotificationInitialized               = "notifications/initialized"                // legacy, client → server
	NotificationCancelled                 = "notifications/cancelled"                  // either direction
	NotificationProgress                  = "notifications/progress"                   // either direction
	NotificationMessage                   = "notifications/message"                    // server → client log message
	NotificationResourcesUpdated          = "notifications/resources/updated"          // server → client
	NotificationResourcesListChanged      = "notifications/resources/list_changed"     // server → client
	NotificationToolsListChanged          = "notifications/tools/list_changed"         // server → client
	NotificationPromptsListChanged        = "notifications/prompts/list_changed"       // server → client
	NotificationRootsListChanged          = "notifications/roots/list_changed"         // legacy, client → server
	NotificationElicitationComplete       = "notifications/elicitation/complete"       // 2025-11-25 only
	NotificationTasksStatus               = "notifications/tasks/status"               // 2025-11-25 tasks (v1)
	NotificationTasks                     = "notifications/tasks"                      // tasks extension, on a listen stream
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged" // modern, first frame of a listen stream
)

// methodSpan is the range of versions in which a core method exists:
// from introduced up to, but not including, removed ("" = still present).
type methodSpan struct{ introduced, removed string }

// coreMethodSpan returns when a core method exists. Extension methods (the
// tasks extension's tasks/get|update|cancel and notifications/tasks) are not
// core; see IsTasksExtensionMethod.
func coreMethodSpan(method string) (methodSpan, bool) {
	switch method {
	case MethodInitialize, MethodPing, MethodResourcesSubscribe, MethodResourcesUnsubscribe,
		MethodLoggingSetLevel, MethodSamplingCreateMessage, MethodRootsList,
		NotificationInitialized, NotificationRootsListChanged:
		return methodSpan{Version20241105, Version20260728}, true
	case MethodElicitationCreate:
		return methodSpan{Version20250618, Version20260728}, true
	case MethodTasksGet, MethodTasksResult, MethodTasksList, MethodTasksCancel,
		NotificationTasksStatus, NotificationElicitationComplete:
		return methodSpan{Version20251125, Version20260728}, true
	case MethodServerDiscover, MethodSubscriptionsListen, NotificationSubscriptionsAcknowledged:
		return methodSpan{Version20260728, ""}, true
	case MethodToolsList, MethodToolsCall, MethodPromptsList, MethodPromptsGet,
		MethodResourcesList, MethodResourcesTemplatesList, MethodResourcesRead,
		MethodCompletionComplete, NotificationCancelled, NotificationProgress,
		NotificationMessage, NotificationResourcesUpdated, NotificationResourcesListChanged,
		NotificationToolsListChanged, NotificationPromptsListChanged:
		return methodSpan{Version20241105, ""}, true
	}
	return methodSpan{}, false
}

// MethodInVersion reports whether a request or notification method is part of
// the core protocol at version v, so a dispatcher can answer anything else
// with -32601. In the modern era sampling/createMessage, elicitation/create and
// roots/list are not methods at all: they only travel as input requests inside
// an InputRequiredResult or a task.
func MethodInVersion(method, v string) bool {
	span, ok := coreMethodSpan(method)
	if !ok || !atLeast(v, span.introduced) {
		return false
	}
	return span.removed == "" || v < span.removed
}

// IsTasksExtensionMethod reports whether method belongs to the
// io.modelcontextprotocol/tasks extension on a modern request: tasks/get,
// tasks/update, tasks/cancel and notifications/tasks. Under the extension,
// tasks/result and tasks/list do not exist.
func IsTasksExtensionMethod(method string) bool {
	switch method {
	case MethodTasksGet, MethodTasksUpdate, MethodTasksCancel, NotificationTasks:
		return true
	}
	return false
}

// AllowsInputRequired reports whether a request method may be answered with an
// InputRequiredResult (multi round-trip requests): only tools/call,
// prompts/get and resources/read.
func AllowsInputRequired(method string) bool {
	switch method {
	case MethodToolsCall, MethodPromptsGet, MethodResourcesRead:
		return true
	}
	return false
}

// NameParam returns the params member that the Streamable HTTP Mcp-Name
// header mirrors for method: "name" for tools/call and prompts/get, "uri" for
// resources/read, "taskId" for the tasks extension's tasks/get|update|cancel,
// and "" for methods that carry no Mcp-Name header.
func NameParam(method string) string {
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		return "name"
	case MethodResourcesRead:
		return "uri"
	case MethodTasksGet, MethodTasksUpdate, MethodTasksCancel:
		return "taskId"
	}
	return ""
}
