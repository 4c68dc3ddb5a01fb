package client

import "context"

// Call sends a request of any method, such as one an extension defines
// (on the server, added with server.AddMethod), and returns its result,
// decoded into an R. params is a pointer to a struct that embeds
// mcp.RequestParams (nil sends the zero params); it is not modified. R
// embeds mcp.Result. The request is made as every request of the session
// is: a modern session adds its _meta, CallOptions such as WithProgress
// apply, it passes through Options.Middleware, and an error answer is
// returned as the *jsonrpc.Error the server sent (-32601 when the server
// does not serve the method).
//
//	res, err := client.Call[EchoResult](ctx, session, "com.example/echo", &EchoParams{Text: "hi"})
func Call[R, P any, RP resultPtr[R], PP paramsPtr[P]](ctx context.Context, s *Session, method string, params PP, opts ...CallOption) (RP, error) {
	var res R
	if err := call[P, R, PP, RP](ctx, s, method, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}
