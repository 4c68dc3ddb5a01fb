package jsonrpc

import "context"

// Handler serves the requests and notifications a Conn receives.
//
// For a request, the returned result is sent as the response's result: a
// json.RawMessage (or jsontext.Value) is sent as is, anything else is encoded
// as JSON. A returned *Error (found with errors.As) is sent as the response's
// error object; any other error becomes -32603 with err.Error() as message.
// For a notification, the result is ignored and an error is only logged.
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// inboundKey is the context key under which a request handler's context
// holds the ID of the request it serves.
type inboundKey struct{}

// InboundID returns the ID of the incoming request that ctx belongs to: ctx
// is, or derives from, the context a Conn passed to that request's handler.
// Transports use it in Stream.Write to route what a handler sends.
func InboundID(ctx context.Context) (ID, bool) {
	id, ok := ctx.Value(inboundKey{}).(ID)
	return id, ok
}
