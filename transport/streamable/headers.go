package streamable

// HTTP header names of the Streamable HTTP transport. Go canonicalizes header
// names, so these match in any case on the wire.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
	headerLastEventID     = "Last-Event-Id"
)

// Media types.
const (
	mediaJSON = "application/json"
	mediaSSE  = "text/event-stream"
)
