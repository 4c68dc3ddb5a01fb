package mcp

import stdjson "encoding/json"

// Tool is a tool the client can call.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"` // 2025-06-18+
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments, raw and emitted as
	// registered (member order and values kept). Its root has type "object".
	// Required: a nil schema encodes as null, which peers reject.
	InputSchema stdjson.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of structuredContent (2025-06-18+); an
	// object schema before 2026-07-28, any schema after. Nil is omitted.
	OutputSchema stdjson.RawMessage `json:"outputSchema,omitzero"`
	Annotations  *ToolAnnotations   `json:"annotations,omitzero"` // 2025-03-26+
	// Execution says whether the tool runs as a 2025-11-25 task. The modern
	// era has no such member: there the server decides per request.
	Execution *ToolExecution `json:"execution,omitzero"`
	Icons     []Icon         `json:"icons,omitempty"` // 2025-11-25+
	Meta      Meta           `json:"_meta,omitempty"` // 2025-06-18+
}

// TaskSupport returns the tool's 2025-11-25 task support, TaskSupportForbidden
// when it declares none.
func (t *Tool) TaskSupport() TaskSupport {
	if t.Execution == nil || t.Execution.TaskSupport == "" {
		return TaskSupportForbidden
	}
	return t.Execution.TaskSupport
}

// ToolAnnotations are hints about a tool's behaviour, untrusted unless the
// server is. Nil pointers mean the documented defaults.
type ToolAnnotations struct {
	Title string `json:"title,omitempty"`
	// ReadOnlyHint: the tool does not modify its environment (default false).
	ReadOnlyHint *bool `json:"readOnlyHint,omitzero"`
	// DestructiveHint: updates may be destructive (default true; meaningful
	// only when not read-only).
	DestructiveHint *bool `json:"destructiveHint,omitzero"`
	// IdempotentHint: repeating a call has no further effect (default false).
	IdempotentHint *bool `json:"idempotentHint,omitzero"`
	// OpenWorldHint: the tool reaches an open world of entities (default true).
	OpenWorldHint *bool `json:"openWorldHint,omitzero"`
}

// ToolExecution describes how a tool runs (2025-11-25).
type ToolExecution struct {
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
}

// TaskSupport says whether a 2025-11-25 tools/call may or must be
// task-augmented.
type TaskSupport string

// Task support levels.
const (
	// TaskSupportForbidden: clients must not augment (the default). A server
	// should answer an augmented call with -32601.
	TaskSupportForbidden TaskSupport = "forbidden"
	// TaskSupportOptional: clients may augment or call normally.
	TaskSupportOptional TaskSupport = "optional"
	// TaskSupportRequired: clients must augment; a server must answer a plain
	// call with -32601.
	TaskSupportRequired TaskSupport = "required"
)

// ListToolsParams are the params of tools/list.
type ListToolsParams = PaginatedParams

// ListToolsResult answers tools/list, in a deterministic order (modern SHOULD).
// Cache is required in the modern era.
type ListToolsResult struct {
	Result
	Cache      *CacheableResult `json:",inline"`
	NextCursor string           `json:"nextCursor,omitempty"`
	Tools      []Tool           `json:"tools"`
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	InputResponseParams
	Name string `json:"name"`
	// Arguments is the arguments object, raw; nil is omitted.
	Arguments stdjson.RawMessage `json:"arguments,omitzero"`
	// Task asks for a 2025-11-25 task. Modern servers must ignore it.
	Task *TaskMetadata `json:"task,omitzero"`
}

// CallToolResult answers tools/call. A tool's own failure is a result with
// IsError set, not a JSON-RPC error, so the model can see it.
type CallToolResult struct {
	Result
	// Content is always encoded, as [] when empty.
	Content Contents `json:"content"`
	// StructuredContent is the structured result, raw (2025-06-18+): a JSON
	// object before 2026-07-28, any JSON value after. Nil is omitted; JSON
	// null is kept.
	StructuredContent stdjson.RawMessage `json:"structuredContent,omitzero"`
	IsError           bool               `json:"isError,omitzero"`
}

// ToolListChangedNotificationParams are the params of
// notifications/tools/list_changed.
type ToolListChangedNotificationParams = NotificationParams
