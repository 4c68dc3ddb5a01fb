// Package sse implements Server-Sent Events for MCP: the event-stream
// format, protection against DNS rebinding, and the HTTP+SSE transport of
// protocol version 2024-11-05 (server and client), so old peers keep working.
package sse
