// Package jsonrpc implements JSON-RPC 2.0 for MCP: messages, IDs kept in their
// exact wire form, a strict decoder, and Conn, the symmetric peer connection.
//
// It knows nothing of MCP. Framing (how bytes become messages) lives behind the
// Stream interface; dispatch and correlation live in Conn, in the manner of the
// x/tools jsonrpc2 package.
package jsonrpc
