package websocket

import (
	"context"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// codeForbidden is the implementation-defined JSON-RPC error code of a
// request whose access token lacks a scope it needs: over HTTP the
// transport answers 403, over a WebSocket the request's error says so.
const codeForbidden int64 = -32000

// authorize checks each request in msg against the scopes the upgrade's
// access token grants (auth.Authorize: by method and, for tools/call, by
// tool), as the HTTP transports do for every POST. A request refused is
// answered here with a JSON-RPC error naming the missing scopes and left
// out; authorize returns what remains of msg, or nil when nothing does. A
// connection whose upgrade the auth middleware did not authenticate is not
// checked: no policy applies to it.
func (s *Stream) authorize(msg jsonrpc.Message) jsonrpc.Message {
	if auth.TokenInfoFrom(s.upgrade) == nil {
		return msg
	}
	batch, ok := msg.(jsonrpc.Batch)
	if !ok {
		if req, ok := msg.(*jsonrpc.Request); ok && !s.allowed(req) {
			return nil
		}
		return msg
	}
	kept := batch[:0:0]
	for _, m := range batch {
		if req, ok := m.(*jsonrpc.Request); ok && !s.allowed(req) {
			continue
		}
		kept = append(kept, m)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// allowed reports whether the token grants what req needs; when it does
// not, it answers req (unless it is a notification, which is dropped).
func (s *Stream) allowed(req *jsonrpc.Request) bool {
	var p struct {
		Name string `json:"name"` // the tool, for tools/call
	}
	if req.Method == mcp.MethodToolsCall {
		json.Unmarshal(req.Params, &p) // malformed params: the server reports them
	}
	err := auth.Authorize(s.upgrade, req.Method, p.Name)
	if err == nil {
		return true
	}
	if !req.IsNotification() {
		// A failed write means a broken connection, which the next read reports.
		s.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(codeForbidden, "%v", err)})
	}
	return false
}
