package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/weftmcp/weft/mcp"
)

// ResourceHandler reads a resource for resources/read. For a resource added
// with AddResource, vars is nil; for one matched by a template, it holds the
// template's variables (a list value joined with commas).
type ResourceHandler func(ctx context.Context, req *Request, uri string, vars map[string]string) (*mcp.ReadResourceResult, error)

// ErrResourceNotFound is returned (wrapped) by a ResourceHandler when the
// resource does not exist, typically one a template matched. The client gets
// the protocol's "resource not found" error for its version: -32602 with
// data {uri} in the modern era, -32002 before it.
var ErrResourceNotFound = errors.New("server: resource not found")

// serverResource is a registered resource.
type serverResource struct {
	resource mcp.Resource
	handler  ResourceHandler
}

// AddResource registers a resource, replacing any resource with the same
// URI (it keeps its place in the list). An error from h is sent as a
// protocol error: ErrResourceNotFound as "resource not found", a
// *jsonrpc.Error as it is, anything else as -32603 with its text
// (ErrInputRequired excepted; see Request.AskAll). AddResource panics when
// the resource has no URI or no name.
func (s *Server) AddResource(r *mcp.Resource, h ResourceHandler) {
	if r.URI == "" || r.Name == "" {
		panic("server: a resource needs a uri and a name")
	}
	s.resources.put(r.URI, &serverResource{resource: *r, handler: h})
	s.hub.listChanged(featureResources)
}

// RemoveResources removes the resources with the given URIs; URIs not
// registered are ignored.
func (s *Server) RemoveResources(uris ...string) {
	if s.resources.remove(uris...) {
		s.hub.listChanged(featureResources)
	}
}

// listResources answers resources/list, in registration order, a page at a time.
func (s *Server) listResources(ctx context.Context, r *Request, p *mcp.ListResourcesParams) (result, error) {
	after, err := s.decodeCursor(mcp.MethodResourcesList, p.Cursor)
	if err != nil {
		return nil, err
	}
	resources, last, more := s.resources.pageVisible(after, s.pageSize, s.visibleResources(ctx, r))
	res := &mcp.ListResourcesResult{Resources: make([]mcp.Resource, len(resources))}
	for i, sr := range resources {
		res.Resources[i] = resourceForVersion(sr.resource, r.version)
	}
	if more {
		res.NextCursor = s.encodeCursor(mcp.MethodResourcesList, last)
	}
	if r.modern {
		res.Cache = s.listCache(s.opts.Visibility.Resource != nil)
	}
	return res, nil
}

// resourceForVersion returns the resource as a client of version v may see it.
func resourceForVersion(r mcp.Resource, v string) mcp.Resource {
	if !mcp.SupportsTitles(v) {
		r.Title, r.Meta = "", nil
	}
	if !mcp.SupportsIcons(v) {
		r.Icons = nil
	}
	return r
}

// readResource answers resources/read: a registered resource with that exact
// URI, else the first template (in registration order) that matches it.
func (s *Server) readResource(ctx context.Context, r *Request, p *mcp.ReadResourceParams) (result, error) {
	if p.URI == "" {
		return nil, invalidParams("resources/read needs a uri")
	}
	var h ResourceHandler
	var vars map[string]string
	if sr, ok := s.resources.getVisible(p.URI, s.visibleResources(ctx, r)); ok {
		h = sr.handler
	} else {
		seeTemplate := s.visibleTemplates(ctx, r)
		for _, st := range s.templates.all() {
			if m := st.template.Match(p.URI); m != nil && (seeTemplate == nil || seeTemplate(st)) {
				h, vars = st.handler, make(map[string]string, len(m))
				for name, v := range m {
					vars[name] = strings.Join(v.V, ",")
				}
				break
			}
		}
	}
	if h == nil {
		return nil, mcp.ResourceNotFoundError(r.version, p.URI)
	}
	res, err := h(ctx, r, p.URI, vars)
	if errors.Is(err, ErrResourceNotFound) {
		return nil, mcp.ResourceNotFoundError(r.version, p.URI)
	}
	if err != nil {
		return nil, err
	}
	if res == nil || len(res.Contents) == 0 {
		return nil, fmt.Errorf("the handler of resource %q returned no contents; a resource that does not exist is ErrResourceNotFound", p.URI)
	}
	out := *res // the handler's value may be shared: finish a copy
	out.Result = mcp.Result{Meta: res.Meta}
	if r.modern && out.Cache == nil {
		out.Cache = cacheHint(s.opts.ReadCache)
	}
	if !r.modern {
		out.Cache = nil
	}
	return &out, nil
}
