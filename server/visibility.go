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

// visibleBy returns the filter of the items of one kind that r's caller
// sees by see, which judges the item that registered values hold; nil when
// see is nil (all are seen).
func visibleBy[T, I any](ctx context.Context, r *Request, see func(context.Context, *Request, *I) bool, item func(T) *I) func(T) bool {
	if see == nil {
		return nil
	}
	return func(v T) bool { return see(ctx, r, item(v)) }
}

// visibleTools returns the filter of the tools r's caller sees.
func (s *Server) visibleTools(ctx context.Context, r *Request) func(*serverTool) bool {
	return visibleBy(ctx, r, s.opts.Visibility.Tool, func(t *serverTool) *mcp.Tool { return &t.tool })
}

// visiblePrompts returns the filter of the prompts r's caller sees.
func (s *Server) visiblePrompts(ctx context.Context, r *Request) func(*serverPrompt) bool {
	return visibleBy(ctx, r, s.opts.Visibility.Prompt, func(p *serverPrompt) *mcp.Prompt { return &p.prompt })
}

// visibleResources returns the filter of the resources r's caller sees.
func (s *Server) visibleResources(ctx context.Context, r *Request) func(*serverResource) bool {
	return visibleBy(ctx, r, s.opts.Visibility.Resource, func(res *serverResource) *mcp.Resource { return &res.resource })
}

// visibleTemplates returns the filter of the resource templates r's caller
// sees.
func (s *Server) visibleTemplates(ctx context.Context, r *Request) func(*serverTemplate) bool {
	return visibleBy(ctx, r, s.opts.Visibility.ResourceTemplate, func(t *serverTemplate) *mcp.ResourceTemplate { return &t.resource })
}
