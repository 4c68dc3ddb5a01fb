package jsonrpc

// CallOption configures one Call.
type CallOption func(*callOptions)

// callOptions is what the CallOptions of one call chose.
type callOptions struct {
	onID func(ID)
}

// OnID has Call report the ID it gives the request: f runs once, after the
// call is registered and before the request is written, so anything the
// peer sends about the call (even before its response) can be matched to
// it. MCP needs this for subscriptions/listen, whose acknowledgement names
// the listen request's ID. f runs on the caller's goroutine and must not
// wait for the call.
func OnID(f func(id ID)) CallOption {
	return func(o *callOptions) { o.onID = f }
}
