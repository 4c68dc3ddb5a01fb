package example

import (
	"context"
	"fmt"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
)

// TouchIn are the arguments of touch.
type TouchIn struct {
	URI  string `json:"uri" jsonschema:"the URI of the resource said to have changed"`
	List bool   `json:"list,omitempty" jsonschema:"also tell every client that the list of resources changed (the readme is registered afresh)"`
}

// addTouch registers touch, which tells the clients subscribed to a
// resource (resources/subscribe) that it changed, and with list every
// client that the resource list changed, so that these notifications can
// be tried: on servers sharing a store, whichever server the call reaches.
func addTouch(s *server.Server) {
	server.AddTool(s, &mcp.Tool{
		Name:        "touch",
		Title:       "Touch",
		Description: "Tells the clients subscribed to a resource (resources/subscribe) that it changed: they get notifications/resources/updated.",
	}, func(ctx context.Context, _ *server.Request, in TouchIn) (string, error) {
		if in.URI == "" {
			return "", fmt.Errorf("uri is empty; give the URI of a resource, such as %s", ReadmeURI)
		}
		if err := s.ResourceUpdated(ctx, in.URI); err != nil {
			return "", err
		}
		if in.List {
			addReadme(s)
			return "told the subscribers of " + in.URI + " that it changed, and every client that the resource list changed", nil
		}
		return "told the subscribers of " + in.URI + " that it changed", nil
	})
}
