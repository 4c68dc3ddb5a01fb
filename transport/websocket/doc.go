// Package websocket carries MCP over WebSocket: a Handler that accepts
// connections on an HTTP endpoint, and Dial, which opens one to a ws:// or
// wss:// URL. Each connection is one full-duplex session, a jsonrpc.Stream
// with one JSON-RPC message per text frame, under the subprotocol "mcp".
//
// WebSocket is a custom transport in the MCP specification's sense; this
// one is what the TypeScript SDK v1 WebSocketClientTransport speaks. Every
// protocol version runs over it as over stdio: a legacy session starts with
// initialize, and 2026-07-28 requests carry their own _meta. The
// streamable.Handler hands the upgrades it receives to a Handler, so one
// endpoint (/mcp) serves Streamable HTTP and WebSocket alike.
package websocket
