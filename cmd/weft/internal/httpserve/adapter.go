package httpserve

import (
	"context"
	"net/http"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/server"
)

// adapter serves a *server.Server to the streamable.Handler through the
// transport's Server interface: legacy sessions over the session's stream,
// modern requests one at a time.
type adapter struct {
	srv *server.Server
}

// sessionIDer is what a legacy session stream of transport/streamable
// offers beyond jsonrpc.Stream (see streamable.Server).
type sessionIDer interface {
	SessionID() string
}

// ConnectStream serves one legacy session, named as the transport names it.
func (a adapter) ConnectStream(ctx context.Context, stream jsonrpc.Stream) error {
	var opts server.ConnectOptions
	if s, ok := stream.(sessionIDer); ok {
		opts.SessionID = s.SessionID()
	}
	_, err := a.srv.Connect(ctx, stream, &opts)
	return err
}

// ServeStandalone serves one modern request.
func (a adapter) ServeStandalone(ctx context.Context, req *jsonrpc.Request, header http.Header, notify func(context.Context, *jsonrpc.Request) error) *jsonrpc.Response {
	return a.srv.ServeRequest(ctx, req, server.RequestInfo{Version: header.Get("MCP-Protocol-Version")}, notify)
}
