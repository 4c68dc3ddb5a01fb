// Package streamable implements the Streamable HTTP transport of MCP: a
// Handler that serves every protocol version on one endpoint, and a Client
// that is a jsonrpc.Stream for the client package.
//
// Legacy versions (2025-03-26 … 2025-11-25) run in sessions that initialize
// starts (Mcp-Session-Id), with a GET stream for server-initiated messages,
// resumable SSE streams (Last-Event-ID) and DELETE to end a session. The
// modern version (2026-07-28) sends every request as a POST that stands
// alone, with its routing mirrored in headers (Mcp-Method, Mcp-Name,
// Mcp-Param-*); closing a response stream cancels its request.
package streamable
