package server

import (
	"context"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/mcp"
)

// initialize answers the legacy handshake: it negotiates the version,
// declares what is served now, and records the client on the session.
func (s *Server) initialize(ctx context.Context, r *Request, p *mcp.InitializeParams) (result, error) {
	if r.session == nil {
		return nil, methodNotFound(r.method, "initialize exists only on a connection (legacy protocol versions)")
	}
	if err := requireInitializeMembers(r.params); err != nil {
		return nil, err
	}
	v := mcp.Negotiate(p.ProtocolVersion)
	caps := s.capabilities(v)
	if err := r.session.initialize(p, v, caps); err != nil {
		return nil, err
	}
	if err := r.session.establish(ctx, p, v); err != nil {
		return nil, err
	}
	r.session.started()
	return &mcp.InitializeResult{
		ProtocolVersion: v,
		Capabilities:    caps,
		ServerInfo:      implementationForVersion(s.info, v),
		Instructions:    s.opts.Instructions,
	}, nil
}

// implementationForVersion returns the server's self-description as a
// client of version v may see it: without the members v does not have.
func implementationForVersion(i mcp.Implementation, v string) mcp.Implementation {
	if !mcp.SupportsTitles(v) {
		i.Title = ""
	}
	if !mcp.SupportsIcons(v) {
		i.Description, i.WebsiteURL, i.Icons = "", "", nil
	}
	return i
}

// requireInitializeMembers returns the -32602 error for initialize params
// (raw, already decoded) that lack a member the InitializeRequest schema
// requires, naming each one missing; absent and null count as missing.
func requireInitializeMembers(raw []byte) error {
	var members struct {
		ProtocolVersion jsontext.Value `json:"protocolVersion"`
		Capabilities    jsontext.Value `json:"capabilities"`
		ClientInfo      jsontext.Value `json:"clientInfo"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &members); err != nil {
			return invalidParams("invalid initialize params: %v", err)
		}
	}
	var missing []string
	for _, m := range []struct {
		name  string
		value jsontext.Value
	}{{"protocolVersion", members.ProtocolVersion}, {"capabilities", members.Capabilities}, {"clientInfo", members.ClientInfo}} {
		if k := m.value.Kind(); k == 0 || k == 'n' {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return invalidParams("initialize params must have protocolVersion, capabilities and clientInfo; missing: %s",
			strings.Join(missing, ", "))
	}
	return nil
}

// ping answers ping (legacy) with an empty result.
func (s *Server) ping(context.Context, *Request, *mcp.PingParams) (result, error) {
	return &mcp.EmptyResult{}, nil
}

// discover answers server/discover (modern): the versions, capabilities and
// instructions of the server, cacheable.
func (s *Server) discover(_ context.Context, r *Request, _ *mcp.DiscoverParams) (result, error) {
	return &mcp.DiscoverResult{
		Cache:             s.listCache(false),
		SupportedVersions: modernVersions(),
		Capabilities:      s.capabilities(r.version),
		Instructions:      s.opts.Instructions,
	}, nil
}
