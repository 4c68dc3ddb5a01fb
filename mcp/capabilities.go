package mcp

import stdjson "encoding/json"

// ExtensionTasks identifies the tasks extension (SEP-2663) in the extensions
// map of client and server capabilities. Its settings object is empty.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// JSONObject is a JSON object kept member by member as raw JSON. Capabilities
// use it for "supported" markers with optional settings: a nil JSONObject is
// absent, an empty non-nil one encodes as {}.
type JSONObject map[string]stdjson.RawMessage

// ClientCapabilities are the optional features a client supports. Legacy
// clients declare them once in initialize; modern clients on every request in
// _meta[MetaClientCapabilities]. Presence of a member means support.
type ClientCapabilities struct {
	// Experimental holds non-standard capabilities by name.
	Experimental map[string]JSONObject `json:"experimental,omitempty"`
	// Roots: the client answers roots/list. Deprecated in 2026-07-28.
	Roots *RootsCapability `json:"roots,omitzero"`
	// Sampling: the client answers sampling/createMessage. Deprecated in 2026-07-28.
	Sampling *SamplingCapability `json:"sampling,omitzero"`
	// Elicitation: the client answers elicitation/create (2025-06-18+).
	Elicitation *ElicitationCapability `json:"elicitation,omitzero"`
	// Tasks is the 2025-11-25 experimental tasks capability. It must not be
	// read as enabling tasks under any other version.
	Tasks *ClientTasksCapability `json:"tasks,omitzero"`
	// Extensions maps extension identifiers (such as ExtensionTasks) to their
	// settings (2026-07-28).
	Extensions map[string]JSONObject `json:"extensions,omitempty"`
}

// RootsCapability declares support for roots.
type RootsCapability struct {
	// ListChanged: the client sends notifications/roots/list_changed (legacy).
	ListChanged bool `json:"listChanged,omitzero"`
}

// SamplingCapability declares support for sampling.
type SamplingCapability struct {
	// Context: the client honours includeContext values other than "none" (2025-11-25+).
	Context JSONObject `json:"context,omitzero"`
	// Tools: the client accepts tools and toolChoice (2025-11-25+).
	Tools JSONObject `json:"tools,omitzero"`
}

// ElicitationCapability declares support for elicitation. An empty object
// means form mode only (the 2025-06-18 meaning, kept by later versions).
type ElicitationCapability struct {
	Form JSONObject `json:"form,omitzero"` // form mode (2025-11-25+)
	URL  JSONObject `json:"url,omitzero"`  // URL mode (2025-11-25+)
}

// SupportsForm reports whether form-mode elicitation is declared: explicitly,
// or implicitly by an elicitation object that names no mode.
func (e *ElicitationCapability) SupportsForm() bool {
	return e != nil && (e.Form != nil || e.URL == nil)
}

// SupportsURL reports whether URL-mode elicitation is declared.
func (e *ElicitationCapability) SupportsURL() bool { return e != nil && e.URL != nil }

// ClientTasksCapability is a 2025-11-25 client's tasks capability, for tasks
// the client hosts on the server's behalf.
type ClientTasksCapability struct {
	List     JSONObject          `json:"list,omitzero"`   // the client answers tasks/list
	Cancel   JSONObject          `json:"cancel,omitzero"` // the client answers tasks/cancel
	Requests *ClientTaskRequests `json:"requests,omitzero"`
}

// ClientTaskRequests lists the server-to-client requests a 2025-11-25 client
// accepts as tasks. The list is exhaustive.
type ClientTaskRequests struct {
	Sampling    *SamplingTaskRequests    `json:"sampling,omitzero"`
	Elicitation *ElicitationTaskRequests `json:"elicitation,omitzero"`
}

// SamplingTaskRequests says that sampling/createMessage may be
// task-augmented.
type SamplingTaskRequests struct {
	CreateMessage JSONObject `json:"createMessage,omitzero"`
}

// ElicitationTaskRequests says that elicitation/create may be
// task-augmented.
type ElicitationTaskRequests struct {
	Create JSONObject `json:"create,omitzero"`
}

// ServerCapabilities are the optional features a server supports, from the
// initialize result (legacy) or the server/discover result (modern).
type ServerCapabilities struct {
	// Experimental holds non-standard capabilities by name.
	Experimental map[string]JSONObject `json:"experimental,omitempty"`
	// Logging: the server sends log messages. Deprecated in 2026-07-28.
	Logging JSONObject `json:"logging,omitzero"`
	// Completions: the server answers completion/complete (2025-03-26+).
	Completions JSONObject           `json:"completions,omitzero"`
	Prompts     *PromptsCapability   `json:"prompts,omitzero"`
	Resources   *ResourcesCapability `json:"resources,omitzero"`
	Tools       *ToolsCapability     `json:"tools,omitzero"`
	// Tasks is the 2025-11-25 experimental tasks capability. A server must
	// not advertise it in a modern discover result; it declares
	// Extensions[ExtensionTasks] there instead.
	Tasks *ServerTasksCapability `json:"tasks,omitzero"`
	// Extensions maps extension identifiers to their settings (2026-07-28).
	Extensions map[string]JSONObject `json:"extensions,omitempty"`
}

// PromptsCapability declares that the server offers prompts.
type PromptsCapability struct {
	// ListChanged: the server sends notifications/prompts/list_changed.
	ListChanged bool `json:"listChanged,omitzero"`
}

// ResourcesCapability declares that the server offers resources.
type ResourcesCapability struct {
	// Subscribe: the server supports per-resource update notifications.
	Subscribe bool `json:"subscribe,omitzero"`
	// ListChanged: the server sends notifications/resources/list_changed.
	ListChanged bool `json:"listChanged,omitzero"`
}

// ToolsCapability declares that the server offers tools.
type ToolsCapability struct {
	// ListChanged: the server sends notifications/tools/list_changed.
	ListChanged bool `json:"listChanged,omitzero"`
}

// ServerTasksCapability is a 2025-11-25 server's tasks capability.
type ServerTasksCapability struct {
	List     JSONObject          `json:"list,omitzero"`   // the server answers tasks/list
	Cancel   JSONObject          `json:"cancel,omitzero"` // the server answers tasks/cancel
	Requests *ServerTaskRequests `json:"requests,omitzero"`
}

// ServerTaskRequests lists the client-to-server requests a 2025-11-25 server
// accepts as tasks. The list is exhaustive.
type ServerTaskRequests struct {
	Tools *ToolsTaskRequests `json:"tools,omitzero"`
}

// ToolsTaskRequests says that tools/call may be task-augmented.
type ToolsTaskRequests struct {
	Call JSONObject `json:"call,omitzero"`
}

// AcceptsToolCallTasks reports whether a 2025-11-25 server declared
// task-augmented tools/call. Without it a client must not augment any tool.
func (c ServerCapabilities) AcceptsToolCallTasks() bool {
	return c.Tasks != nil && c.Tasks.Requests != nil && c.Tasks.Requests.Tools != nil &&
		c.Tasks.Requests.Tools.Call != nil
}

// HasExtension reports whether the client declared the extension id.
func (c ClientCapabilities) HasExtension(id string) bool {
	_, ok := c.Extensions[id]
	return ok
}

// HasExtension reports whether the server declared the extension id.
func (c ServerCapabilities) HasExtension(id string) bool {
	_, ok := c.Extensions[id]
	return ok
}

// Covers reports whether c declares everything required declares: every
// present capability, sub-capability, true flag, experimental name and
// extension identifier. Settings inside the objects are not compared. An
// elicitation object naming no mode means form mode, whether declared or
// required.
func (c ClientCapabilities) Covers(required ClientCapabilities) bool {
	if !coversKeys(c.Experimental, required.Experimental) || !coversKeys(c.Extensions, required.Extensions) {
		return false
	}
	if r := required.Roots; r != nil {
		if c.Roots == nil || (r.ListChanged && !c.Roots.ListChanged) {
			return false
		}
	}
	if r := required.Sampling; r != nil {
		if c.Sampling == nil || !covers(c.Sampling.Context, r.Context) || !covers(c.Sampling.Tools, r.Tools) {
			return false
		}
	}
	if r := required.Elicitation; r != nil {
		if c.Elicitation == nil || (r.SupportsForm() && !c.Elicitation.SupportsForm()) ||
			(r.SupportsURL() && !c.Elicitation.SupportsURL()) {
			return false
		}
	}
	if r := required.Tasks; r != nil {
		if c.Tasks == nil || !covers(c.Tasks.List, r.List) || !covers(c.Tasks.Cancel, r.Cancel) {
			return false
		}
		if rr := r.Requests; rr != nil {
			cr := c.Tasks.Requests
			if cr == nil {
				return false
			}
			if rr.Sampling != nil && (cr.Sampling == nil || !covers(cr.Sampling.CreateMessage, rr.Sampling.CreateMessage)) {
				return false
			}
			if rr.Elicitation != nil && (cr.Elicitation == nil || !covers(cr.Elicitation.Create, rr.Elicitation.Create)) {
				return false
			}
		}
	}
	return true
}

// covers reports whether have is present wherever want is.
func covers(have, want JSONObject) bool { return want == nil || have != nil }

// coversKeys reports whether have holds every key of want.
func coversKeys(have, want map[string]JSONObject) bool {
	for k := range want {
		if _, ok := have[k]; !ok {
			return false
		}
	}
	return true
}
