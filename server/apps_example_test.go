package server_test

import (
	"context"
	"fmt"
	"log"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// forecastIn is the forecast tool's input.
type forecastIn struct {
	City string `json:"city" jsonschema:"the city to forecast"`
}

// newWeatherServer is an example server with an MCP App: the forecast tool
// names a ui:// page that hosts which render apps show next to its result.
// Its text content stands on its own for hosts that do not.
func newWeatherServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	err := s.AddUIResource(&mcp.Resource{URI: "ui://weather/forecast", Name: "forecast-view"},
		`<!DOCTYPE html><html><body><div id="chart"></div><script src="https://cdn.example.com/chart.js"></script></body></html>`,
		&mcp.UIResourceMeta{CSP: &mcp.UICSP{ResourceDomains: []string{"https://cdn.example.com"}}})
	if err != nil {
		log.Fatal(err)
	}
	tool := &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather for a city"}
	if err := tool.SetUI(&mcp.UIToolMeta{ResourceURI: "ui://weather/forecast",
		Visibility: []mcp.UIVisibility{mcp.UIVisibleToModel, mcp.UIVisibleToApp}}); err != nil {
		log.Fatal(err)
	}
	server.AddTool(s, tool, func(ctx context.Context, r *server.Request, in forecastIn) (string, error) {
		// The same meaningful text for every host; a host rendering the
		// app (r.ClientCapabilities().RendersApps()) shows the page too.
		return fmt.Sprintf("%s: 21°C, light rain in the afternoon", in.City), nil
	})
	return s
}

// A host that renders MCP Apps declares the extension, sees that a tool has
// a UI, reads the app's page and calls the tool.
func ExampleServer_AddUIResource() {
	ctx := context.Background()
	clientEnd, serverEnd := transport.Pipe()
	if _, err := newWeatherServer().Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	host := client.New(mcp.Implementation{Name: "host", Version: "1.0.0"}, &client.Options{
		Extensions: map[string]mcp.JSONObject{mcp.ExtensionUI: mcp.UIClientCapability()},
	})
	session, err := host.Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	for tool, err := range session.Tools(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		ui, ok := tool.UI()
		if !ok {
			continue
		}
		res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: ui.ResourceURI})
		if err != nil {
			log.Fatal(err)
		}
		page := res.Contents[0].(*mcp.TextResourceContents)
		var meta mcp.UIResourceMeta
		if err := page.Meta.Decode("ui", &meta); err != nil {
			log.Fatal(err)
		}
		fmt.Println(tool.Name, "renders", ui.ResourceURI, "as", page.MIMEType, "loading from", meta.CSP.ResourceDomains)
	}
	out, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: []byte(`{"city":"Lyon"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Content[0].(*mcp.TextContent).Text)
	// Output:
	// forecast renders ui://weather/forecast as text/html;profile=mcp-app loading from [https://cdn.example.com]
	// Lyon: 21°C, light rain in the afternoon
}
