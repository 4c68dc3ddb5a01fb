package example

import (
	"context"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// ReadmeURI is the URI of the example server's one resource.
const ReadmeURI = "weft://example/readme"

// readme is the text of the resource at ReadmeURI.
const readme = `weft example server

Tools: echo {text}, sleep {seconds}, confirm {question}, fail {message},
once {seconds}, touch {uri}.
sleep, confirm and once may run as tasks: durable, pollable and cancellable.
A task whose server is lost runs again on another, except once's, which fails.
`

// addReadme registers the resource that describes the example server.
func addReadme(s *server.Server) {
	s.AddResource(&mcp.Resource{URI: ReadmeURI, Name: "readme", Title: "About this server", Description: "What the example server offers", MIMEType: "text/plain"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: readme}}}, nil
		})
}
