package proxy

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// syncResources offers the wrapped server's resources and resource
// templates, and withdraws those it no longer lists.
func (p *Proxy) syncResources(ctx context.Context) error {
	listed := map[string]bool{}
	for r, err := range p.wrapped.Resources(ctx) {
		if err != nil {
			return fmt.Errorf("listing the wrapped server's resources: %w", err)
		}
		listed[r.URI] = true
		p.srv.AddResource(r, p.readResource)
	}
	p.withdraw(&p.resourceURIs, listed, p.srv.RemoveResources)

	listed = map[string]bool{}
	for t, err := range p.wrapped.ResourceTemplates(ctx) {
		if err != nil {
			return fmt.Errorf("listing the wrapped server's resource templates: %w", err)
		}
		if err := p.addTemplate(t); err != nil {
			p.logger.Warn("proxy: a resource template of the wrapped server is left out", "uriTemplate", t.URITemplate, "problem", err)
			continue
		}
		listed[t.URITemplate] = true
	}
	p.withdraw(&p.templateURIs, listed, p.srv.RemoveResourceTemplates)
	return nil
}

// addTemplate offers one resource template; the weft server panics on a
// template it cannot parse, which is reported as an error here.
func (p *Proxy) addTemplate(t *mcp.ResourceTemplate) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	p.srv.AddResourceTemplate(t, p.readResource)
	return nil
}

// readResource reads a resource from the wrapped server.
func (p *Proxy) readResource(ctx context.Context, req *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
	ctx, done := p.calls.enter(ctx, req)
	defer done()
	return p.wrapped.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
}
