package mcp

import "github.com/weftmcp/weft/jsonrpc"

// CancelledNotificationParams are the params of notifications/cancelled. It
// must not be used to cancel a task (use tasks/cancel). In the modern era it
// is a stdio-only signal; on HTTP closing the response stream cancels.
type CancelledNotificationParams struct {
	NotificationParams
	// RequestID is the request being cancelled. Required before 2025-11-25
	// and in 2026-07-28; optional in 2025-11-25. The zero ID is omitted.
	RequestID jsonrpc.ID `json:"requestId,omitzero"`
	Reason    string     `json:"reason,omitempty"`
}
