// Package transport moves JSON-RPC messages between peers: newline-delimited
// JSON over stdio or a subprocess's pipes, and an in-memory pipe for tests.
//
// Every stream here implements jsonrpc.Stream. The HTTP transports live in
// the sub-packages streamable and sse.
package transport
