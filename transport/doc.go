// Package transport moves JSON-RPC messages between peers: newline-delimited
// JSON over stdio or a subprocess's pipes, and an in-memory pipe for tests.
//
// Every stream here implements jsonrpc.Stream. The HTTP transports live in
// the sub-packages streamable and sse, WebSocket in websocket; the types
// with which they describe sessions and requests to the server
// (SessionInfo, RequestInfo, Exchange) live here, so the server needs no
// HTTP.
package transport
