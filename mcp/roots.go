package mcp

// Root is a directory or file the server may operate on. Roots are deprecated
// in 2026-07-28 but still work.
type Root struct {
	// URI must start with file:// for now.
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitempty"` // 2025-06-18+
}

// ListRootsParams are the params of roots/list.
type ListRootsParams = RequestParams

// ListRootsResult answers roots/list. As a modern input response it carries no
// resultType.
type ListRootsResult struct {
	Result
	Roots []Root `json:"roots"`
}

// RootsListChangedNotificationParams are the params of
// notifications/roots/list_changed (legacy).
type RootsListChangedNotificationParams = NotificationParams
