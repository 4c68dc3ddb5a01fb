package jsonrpc

import "encoding/json"

// Message is one JSON-RPC 2.0 message: a *Request (a call or a notification),
// a *Response, or a Batch of them. A Batch decoded from the wire also holds a
// *DecodeError in place of each element that is not a valid message; such a
// batch cannot be encoded.
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

	// encoded is Result as a Conn encoded it itself (strict, compact JSON),
	// set on the responses it makes. While Result is still that very text,
	// encoding the response copies it as is instead of checking it again.
	encoded []byte
}

// encodedResult reports whether r.Result is JSON text its Conn encoded
// itself and that has not been replaced since (see Response.encoded).
func (r *Response) encodedResult() bool {
	return len(r.encoded) > 0 && len(r.Result) == len(r.encoded) && &r.Result[0] == &r.encoded[0]
}

// Batch is a JSON array of messages. It is accepted only where the peer has
// allowed batching (MCP 2025-03-26).
type Batch []Message

func (*Request) isMessage()  {}
func (*Response) isMessage() {}
func (Batch) isMessage()     {}

// isMessage lets a *DecodeError stand for an invalid element of a Batch.
func (*DecodeError) isMessage() {}
