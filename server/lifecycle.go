package server

import (
	"context"

	"github.com/weftmcp/weft/mcp"
)

// initialize answers the legacy handshake: it negotiates the version,
// declares what is served now, and records the client on the session.
func (s *Server) initialize(_ context.Context, r *Request, p *mcp.InitializeParams) (result, error) {
	if r.session == nil {
		return nil, methodNotFound(r.method, "initialize exists only on a connection (legacy protocol versions)")
	}
	v := mcp.Negotiate(p.ProtocolVersion)
	caps := s.capabilities(v)
	if err := r.session.initialize(p, v, caps); err != nil {
		return nil, err
	}
	r.session.started()
	return &mcp.InitializeResult{
		ProtocolVersion: v,
		Capabilities:    caps,
		ServerInfo:      s.info,
		Instructions:    s.opts.Instructions,
	}, nil
}

// ping answers ping (legacy) with an empty result.
func (s *Server) ping(context.Context, *Request, *mcp.PingParams) (result, error) {
	return &mcp.EmptyResult{}, nil
}

// discover answers server/discover (modern): the versions, capabilities and
// instructions of the server, cacheable.
func (s *Server) discover(_ context.Context, r *Request, _ *mcp.DiscoverParams) (result, error) {
	return &mcp.DiscoverResult{
		Cache:             cacheHint(s.opts.ListCache),
		SupportedVersions: modernVersions(),
		Capabilities:      s.capabilities(r.version),
		Instructions:      s.opts.Instructions,
	}, nil
}
