package jsonrpc

import "encoding/json"

// Message is one JSON-RPC 2.0 message: a *Request (a call or a notification),
// a *Response, or a Batch of them.
type Message interface {
	isMessage()
}

// Request is a call when ID is valid and a notification when it is absent.
// Params holds the raw params member (nil when absent).
type Request struct {
	ID     ID
	Method string
	Params json.RawMessage
}

// IsNotification reports whether the request expects no response.
func (r *Request) IsNotification() bool { return !r.ID.IsValid() }

// Response answers a call: exactly one of Result and Error is set.
type Response struct {
	ID     ID
	Result json.RawMessage
	Error  *Error
}

// Batch is a JSON array of messages. It is accepted only where the peer has
// allowed batching (MCP 2025-03-26).
type Batch []Message

func (*Request) isMessage()  {}
func (*Response) isMessage() {}
func (Batch) isMessage()     {}
