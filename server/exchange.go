package server

import (
	"context"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// exchange finds the HTTP exchange carrying request id of a legacy session
// whose stream has them (transport.Exchanges), and returns the handler's
// context with that exchange's values: what the HTTP middleware stored, such
// as the verified access token, reaches the handler as it would on a modern
// request. Without one, ctx is returned as it is.
func (ss *Session) exchange(ctx context.Context, id jsonrpc.ID) (context.Context, transport.Exchange) {
	exchanges, ok := ss.stream.(transport.Exchanges)
	if !ok {
		return ctx, nil
	}
	ex := exchanges.Exchange(id)
	if ex == nil {
		return ctx, nil
	}
	if vals := ex.Context(); vals != nil {
		ctx = valuesFrom{Context: ctx, vals: vals}
	}
	return ctx, ex
}

// valuesFrom is a context that ends with its embedded context and looks up
// the values that context lacks in vals.
type valuesFrom struct {
	context.Context
	vals context.Context
}

// Value returns the embedded context's value for key, or else vals'.
func (c valuesFrom) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.vals.Value(key)
}
