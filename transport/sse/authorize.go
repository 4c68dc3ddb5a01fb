package sse

import (
	"context"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// authorize checks that the token of a POST authenticated by the auth
// middleware grants the scopes the requests in msg need by their method
// and, for tools/call, their tool (auth.Authorize); it returns the
// *auth.InsufficientScopeError to answer with, or nil. A POST the
// middleware did not authenticate is not checked: no policy applies to it.
func authorize(ctx context.Context, msg jsonrpc.Message) error {
	if auth.TokenInfoFrom(ctx) == nil {
		return nil
	}
	msgs, ok := msg.(jsonrpc.Batch)
	if !ok {
		msgs = jsonrpc.Batch{msg}
	}
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		var p struct {
			Name string `json:"name"` // the tool, for tools/call
		}
		if req.Method == mcp.MethodToolsCall {
			json.Unmarshal(req.Params, &p) // malformed params: the server reports them
		}
		if err := auth.Authorize(ctx, req.Method, p.Name); err != nil {
			return err
		}
	}
	return nil
}
