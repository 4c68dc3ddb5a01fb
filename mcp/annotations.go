package mcp

// Role is the sender or recipient of a message in a conversation.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations tell the client how to use or show an object (2025-03-26+;
// 2024-11-05 carried the same audience and priority members).
type Annotations struct {
	// Audience is who the object is meant for.
	Audience []Role `json:"audience,omitempty"`
	// Priority runs from 0 (entirely optional) to 1 (effectively required);
	// nil means unspecified.
	Priority *float64 `json:"priority,omitzero"`
	// LastModified is an ISO 8601 timestamp (2025-06-18+).
	LastModified string `json:"lastModified,omitempty"`
}
