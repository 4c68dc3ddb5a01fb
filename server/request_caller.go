package server

import "github.com/weftmcp/weft/mcp"

// IsNotification reports whether r is a notification (it has no ID and
// gets no answer), as middleware and notification hooks see them.
func (r *Request) IsNotification() bool { return !r.id.IsValid() }

// SessionID returns the ID of the legacy session the request arrived on, ""
// in the modern era (which has no sessions).
func (r *Request) SessionID() string {
	if r.session == nil {
		return ""
	}
	return r.session.id
}

// DecodedParams returns the request's params as the server decoded them:
// the mcp params type of the method (*mcp.CallToolParams for tools/call,
// *mcp.ReadResourceParams for resources/read, …) or the params type of a
// method added with AddMethod. It is nil for a notification. Middleware
// reads it; it must not be modified.
func (r *Request) DecodedParams() any {
	if r.decoded == nil {
		return nil
	}
	return r.decoded
}

// ToolName returns the name of the tool a tools/call request calls, "" for
// any other request.
func (r *Request) ToolName() string {
	if p, ok := r.decoded.(*mcp.CallToolParams); ok {
		return p.Name
	}
	return ""
}
