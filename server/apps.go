package server

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/weftmcp/weft/mcp"
)

// AddUIResource registers an MCP App (SEP-1865): the HTML page of a ui://
// resource, served with MIME type mcp.MIMEAppHTML and with ui (its CSP,
// permissions, sandbox domain and border preference; nil for none) as
// _meta.ui on both its resources/list entry (beside r's other _meta
// members) and its resources/read contents. The server then declares the
// io.modelcontextprotocol/ui extension. A tool shows the app through its _meta.ui (mcp.Tool.SetUI);
// its content must still make sense on its own, since hosts without the
// extension (mcp.ClientCapabilities.RendersApps is false) show only that.
//
// AddUIResource returns an error when the URI is not a ui:// URI or the
// resource has no name, or when ui cannot be encoded.
func (s *Server) AddUIResource(r *mcp.Resource, html string, ui *mcp.UIResourceMeta) error {
	if !strings.HasPrefix(r.URI, mcp.UIScheme) || r.Name == "" {
		return fmt.Errorf("server: AddUIResource: an app resource needs a %s URI and a name, got uri %q name %q", mcp.UIScheme, r.URI, r.Name)
	}
	res := *r
	res.MIMEType = mcp.MIMEAppHTML
	var meta mcp.Meta
	if ui != nil {
		res.Meta = maps.Clone(r.Meta)
		if err := res.Meta.Set("ui", ui); err != nil {
			return fmt.Errorf("server: AddUIResource %s: %w", r.URI, err)
		}
		meta = mcp.Meta{"ui": res.Meta["ui"]}
	}
	contents := &mcp.TextResourceContents{URI: r.URI, MIMEType: mcp.MIMEAppHTML, Text: html, Meta: meta}
	s.AddResource(&res, func(context.Context, *Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{contents}}, nil
	})
	s.apps.Store(true)
	return nil
}
