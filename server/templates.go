package server

import (
	"context"
	"fmt"

	// uritemplate implements RFC 6570 URI templates, including matching a URI
	// back to its variables, which resource templates need; it is the RFC 6570
	// matcher the Go MCP ecosystem uses.
	"github.com/yosida95/uritemplate/v3"

	"github.com/weftmcp/weft/mcp"
)

// serverTemplate is a registered resource template.
type serverTemplate struct {
	resource mcp.ResourceTemplate
	template *uritemplate.Template
	handler  ResourceHandler
}

// AddResourceTemplate registers a family of resources by an RFC 6570 URI
// template, replacing any template with the same uriTemplate (it keeps its
// place in the list). A resources/read whose URI matches no registered
// resource is served by the first template that matches it, and h gets the
// template's variables. Errors from h are handled as for AddResource. It
// panics when the template has no name or does not parse.
func (s *Server) AddResourceTemplate(t *mcp.ResourceTemplate, h ResourceHandler) {
	if t.Name == "" {
		panic("server: a resource template needs a name")
	}
	tmpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		panic(fmt.Sprintf("server: resource template %q: %q is not an RFC 6570 URI template: %v", t.Name, t.URITemplate, err))
	}
	s.templates.put(t.URITemplate, &serverTemplate{resource: *t, template: tmpl, handler: h})
	s.hub.listChanged(featureResources)
}

// RemoveResourceTemplates removes the templates with the given uriTemplates;
// those not registered are ignored.
func (s *Server) RemoveResourceTemplates(uriTemplates ...string) {
	if s.templates.remove(uriTemplates...) {
		s.hub.listChanged(featureResources)
	}
}

// listTemplates answers resources/templates/list, in registration order, a
// page at a time.
func (s *Server) listTemplates(ctx context.Context, r *Request, p *mcp.ListResourceTemplatesParams) (result, error) {
	after, err := s.decodeCursor(mcp.MethodResourcesTemplatesList, p.Cursor)
	if err != nil {
		return nil, err
	}
	templates, last, more := s.templates.pageVisible(after, s.pageSize, s.visibleTemplates(ctx, r))
	res := &mcp.ListResourceTemplatesResult{ResourceTemplates: make([]mcp.ResourceTemplate, len(templates))}
	for i, st := range templates {
		t := st.resource
		if !mcp.SupportsTitles(r.version) {
			t.Title, t.Meta = "", nil
		}
		if !mcp.SupportsIcons(r.version) {
			t.Icons = nil
		}
		res.ResourceTemplates[i] = t
	}
	if more {
		res.NextCursor = s.encodeCursor(mcp.MethodResourcesTemplatesList, last)
	}
	if r.modern {
		res.Cache = s.listCache(s.opts.Visibility.ResourceTemplate != nil)
	}
	return res, nil
}
