package jsonrpc

import (
	stdjson "encoding/json"
	"fmt"

	"github.com/go-json-experiment/json"
)

// The error codes JSON-RPC 2.0 itself defines.
const (
	CodeParseError     int64 = -32700 // the message is not valid JSON
	CodeInvalidRequest int64 = -32600 // valid JSON, but not a valid JSON-RPC message
	CodeMethodNotFound int64 = -32601 // no handler for the method
	CodeInvalidParams  int64 = -32602 // the params do not fit the method
	CodeInternalError  int64 = -32603 // the handler failed unexpectedly
)

// CodeServerBusy is the implementation-defined code (in JSON-RPC's server
// error range) with which a Conn refuses a request when its queue is full.
const CodeServerBusy int64 = -32000

// Error is a JSON-RPC error object. It is both the error member of a Response
// and a Go error: a handler that returns an *Error sends exactly that object.
type Error struct {
	Code    int64              `json:"code"`
	Message string             `json:"message"`
	Data    stdjson.RawMessage `json:"data,omitzero"`
}

// Error formats the code and message.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// NewError returns an *Error with the code and a message formatted like fmt.Sprintf.
func NewError(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns a copy of e whose data member is v encoded as JSON.
// A value that cannot be encoded leaves the data member empty.
func (e *Error) WithData(v any) *Error {
	c := *e
	if b, err := json.Marshal(v); err == nil {
		c.Data = b
	}
	return &c
}
