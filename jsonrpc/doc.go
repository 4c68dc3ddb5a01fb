// Package jsonrpc implements JSON-RPC 2.0 for MCP: messages, IDs kept in their
// exact wire form, a strict decoder, and Conn, the symmetric peer connection.
//
// It knows nothing of MCP. Framing (how bytes become messages) lives behind the
// Stream interface; dispatch and correlation live in Conn, in the manner of the
// x/tools jsonrpc2 package. A Conn reads its Stream with a goroutine of its
// own, or, over a PushStream (a transport with goroutines of its own, such as
// an HTTP server), is handed each message and holds no goroutine while idle.
package jsonrpc
