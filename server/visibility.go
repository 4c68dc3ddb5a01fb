package server

import (
	"context"

	"github.com/weftmcp/weft/mcp"
)

// Visibility decides which tools, resources, resource templates and prompts
// the caller of a request can see: each function reports whether one item
// is visible to r's caller, from what r knows of it (Principal, SessionID,
// ClientCapabilities, ProtocolVersion) and what ctx carries (over
// Streamable HTTP behind auth's middleware, auth.TokenInfoFrom(ctx) gives
// the token's scopes). A nil function shows every item of its kind.
//
// The same decision applies everywhere: a hidden item is left out of its
// list (tools/list, resources/list, resources/templates/list,
// prompts/list) and is answered exactly as an unknown one when called,
// read or got (a hidden resource template matches no URI). Calls that ran
// as tasks are not re-checked when the task runs.
//
// The functions run on every list, call, read and get, so they must be
// fast and safe for concurrent use; they must not modify the item. When
// what they decide changes (a role granted, a scope revoked), call
// Server.VisibilityChanged so that clients list again.
type Visibility struct {
	Tool             func(ctx context.Context, r *Request, t *mcp.Tool) bool
	Resource         func(ctx context.Context, r *Request, res *mcp.Resource) bool
	ResourceTemplate func(ctx context.Context, r *Request, t *mcp.ResourceTemplate) bool
	Prompt           func(ctx context.Context, r *Request, p *mcp.Prompt) bool
}

// VisibilityChanged tells the clients that what Options.Visibility decides
// may have changed: each list whose kind has a visibility function gets its
// list_changed notification, on every initialized legacy session that was
// told the list may change and on every modern subscriptions/listen stream
// that asked for it.
func (s *Server) VisibilityChanged() {
	v := &s.opts.Visibility
	if v.Tool != nil {
		s.hub.listChanged(featureTools)
	}
	if v.Prompt != nil {
		s.hub.listChanged(featurePrompts)
	}
	if v.Resource != nil || v.ResourceTemplate != nil {
		s.hub.listChanged(featureResources)
	}
}

// visibleTools returns the filter of the tools r's caller sees, nil when
// it sees all.
func (s *Server) visibleTools(ctx context.Context, r *Request) func(*serverTool) bool {
	see := s.opts.Visibility.Tool
	if see == nil {
		return nil
	}
	return func(t *serverTool) bool { return see(ctx, r, &t.tool) }
}

// visiblePrompts returns the filter of the prompts r's caller sees, nil
// when it sees all.
func (s *Server) visiblePrompts(ctx context.Context, r *Request) func(*serverPrompt) bool {
	see := s.opts.Visibility.Prompt
	if see == nil {
		return nil
	}
	return func(p *serverPrompt) bool { return see(ctx, r, &p.prompt) }
}

// visibleResources returns the filter of the resources r's caller sees, nil
// when it sees all.
func (s *Server) visibleResources(ctx context.Context, r *Request) func(*serverResource) bool {
	see := s.opts.Visibility.Resource
	if see == nil {
		return nil
	}
	return func(res *serverResource) bool { return see(ctx, r, &res.resource) }
}

// visibleTemplates returns the filter of the resource templates r's caller
// sees, nil when it sees all.
func (s *Server) visibleTemplates(ctx context.Context, r *Request) func(*serverTemplate) bool {
	see := s.opts.Visibility.ResourceTemplate
	if see == nil {
		return nil
	}
	return func(t *serverTemplate) bool { return see(ctx, r, &t.resource) }
}
