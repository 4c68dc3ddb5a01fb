package server_test

import (
	"context"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// TestAppExampleOnTheWire reads the example server's app as a host would,
// in both eras: the server declares io.modelcontextprotocol/ui, the tool's
// _meta.ui names the ui:// resource and its visibility, the resource's list
// entry and contents carry MIME type text/html;profile=mcp-app and the CSP
// under _meta.ui, and a host without the extension still gets the tool's
// text.
func TestAppExampleOnTheWire(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		for _, renders := range []bool{true, false} {
			opts := &client.Options{ProtocolVersion: v}
			if renders {
				opts.Extensions = map[string]mcp.JSONObject{mcp.ExtensionUI: mcp.UIClientCapability()}
			}
			ctx := context.Background()
			clientEnd, serverEnd := transport.Pipe()
			ss, err := newWeatherServer().Connect(ctx, serverEnd, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := client.New(mcp.Implementation{Name: "host", Version: "1"}, opts).Connect(ctx, clientEnd)
			if err != nil {
				t.Fatal(err)
			}
			if !s.ServerCapabilities().HasExtension(mcp.ExtensionUI) {
				t.Errorf("%s: the server does not declare %s", v, mcp.ExtensionUI)
			}
			tools, err := s.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(tools.Tools[0].Meta["ui"]); got != `{"resourceUri":"ui://weather/forecast","visibility":["model","app"]}` {
				t.Errorf("%s: tool _meta.ui = %s", v, got)
			}
			list, err := s.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := list.Resources[0]
			if r.MIMEType != mcp.MIMEAppHTML || string(r.Meta["ui"]) != `{"csp":{"resourceDomains":["https://cdn.example.com"]}}` {
				t.Errorf("%s: resource entry %+v, _meta.ui %s", v, r, r.Meta["ui"])
			}
			read, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://weather/forecast"})
			if err != nil {
				t.Fatal(err)
			}
			page := read.Contents[0].(*mcp.TextResourceContents)
			var ui mcp.UIResourceMeta
			if page.MIMEType != mcp.MIMEAppHTML || page.Meta.Decode("ui", &ui) != nil || len(ui.CSP.ResourceDomains) != 1 {
				t.Errorf("%s: contents %+v", v, page)
			}
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: []byte(`{"city":"Lyon"}`)})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text == "" {
				t.Errorf("%s (host renders apps: %v): tool result %+v, %v; want meaningful text", v, renders, res, err)
			}
			s.Close()
			ss.Close()
		}
	}
}

// TestRendersAppsNeedsTheAppMIMEType: a host renders apps only when it
// declares the extension with text/html;profile=mcp-app.
func TestRendersAppsNeedsTheAppMIMEType(t *testing.T) {
	for _, c := range []struct {
		ext  map[string]mcp.JSONObject
		want bool
	}{
		{nil, false},
		{map[string]mcp.JSONObject{mcp.ExtensionUI: {}}, false},
		{map[string]mcp.JSONObject{mcp.ExtensionUI: mcp.UIClientCapability("text/html")}, false},
		{map[string]mcp.JSONObject{mcp.ExtensionUI: mcp.UIClientCapability()}, true},
	} {
		raw, _ := json.Marshal(c.ext)
		if got := (mcp.ClientCapabilities{Extensions: c.ext}).RendersApps(); got != c.want {
			t.Errorf("extensions %s: RendersApps = %v, want %v", raw, got, c.want)
		}
	}
}

// TestAddUIResourceKeepsTheResourcesOtherMeta: the resource's own _meta
// members stay on its list entry beside _meta.ui, which the read contents
// carry too.
func TestAddUIResourceKeepsTheResourcesOtherMeta(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "apps", Version: "1"}, nil)
	res := &mcp.Resource{URI: "ui://apps/page", Name: "page", Meta: mcp.Meta{"com.example/owner": []byte(`"ops"`)}}
	if err := srv.AddUIResource(res, "<!doctype html><title>p</title>", &mcp.UIResourceMeta{Domain: "apps.example.com"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	clientEnd, serverEnd := transport.Pipe()
	ss, err := srv.Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	s, err := client.New(mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(ctx, clientEnd)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list, err := s.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	read, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://apps/page"})
	if err != nil {
		t.Fatal(err)
	}
	if meta := list.Resources[0].Meta; string(meta["com.example/owner"]) != `"ops"` || string(meta["ui"]) != `{"domain":"apps.example.com"}` {
		t.Errorf("the list entry's _meta is %s; want com.example/owner and ui", meta)
	}
	if meta := read.Contents[0].(*mcp.TextResourceContents).Meta; string(meta["ui"]) != `{"domain":"apps.example.com"}` {
		t.Errorf("the contents' _meta is %s; want ui", meta)
	}
	if len(res.Meta) != 1 {
		t.Errorf("AddUIResource changed the caller's _meta: %v", res.Meta)
	}
}
