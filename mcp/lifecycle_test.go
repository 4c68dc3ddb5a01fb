package mcp

import "testing"

func TestInitializeRoundTrip(t *testing.T) {
	// Spec examples from the 2025-11-25 lifecycle page.
	p := roundTrip[InitializeParams](t, `{
	  "protocolVersion": "2025-11-25",
	  "capabilities": {
	    "roots": {"listChanged": true},
	    "sampling": {},
	    "elicitation": {"form": {}, "url": {}},
	    "tasks": {"requests": {"elicitation": {"create": {}}, "sampling": {"createMessage": {}}}}
	  },
	  "clientInfo": {
	    "name": "ExampleClient",
	    "title": "Example Client Display Name",
	    "version": "1.0.0",
	    "description": "An example MCP client application",
	    "icons": [{"src": "https://example.com/icon.png", "mimeType": "image/png", "sizes": ["48x48"]}],
	    "websiteUrl": "https://example.com"
	  }
	}`, "")
	if p.ProtocolVersion != Version20251125 || p.ClientInfo.WebsiteURL != "https://example.com" ||
		!p.Capabilities.Roots.ListChanged || p.Capabilities.Tasks.Requests.Elicitation.Create == nil {
		t.Errorf("initialize params decoded as %+v", p)
	}

	r := roundTrip[InitializeResult](t, `{
	  "protocolVersion": "2025-11-25",
	  "capabilities": {
	    "logging": {},
	    "prompts": {"listChanged": true},
	    "resources": {"subscribe": true, "listChanged": true},
	    "tools": {"listChanged": true},
	    "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
	  },
	  "serverInfo": {
	    "name": "ExampleServer",
	    "title": "Example Server Display Name",
	    "version": "1.0.0",
	    "description": "An example MCP server providing tools and resources",
	    "icons": [{"src": "https://example.com/server-icon.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}],
	    "websiteUrl": "https://example.com/server"
	  },
	  "instructions": "Optional instructions for the client"
	}`, "")
	if r.ResultType != "" {
		t.Errorf("legacy result gained resultType %q", r.ResultType)
	}

	// A 2024-11-05 handshake: bare implementation, sampling as a plain object.
	roundTrip[InitializeParams](t, `{"protocolVersion":"2024-11-05","capabilities":{"roots":{"listChanged":true},"sampling":{}},
		"clientInfo":{"name":"ExampleClient","version":"1.0.0"}}`, "")
}

func TestDiscoverResultRoundTrip(t *testing.T) {
	// Spec example: DiscoverResult/server-capabilities-discovery.
	r := roundTrip[DiscoverResult](t, `{
	  "resultType": "complete",
	  "supportedVersions": ["2026-07-28"],
	  "capabilities": {"tools": {}, "resources": {}},
	  "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "ExampleServer", "version": "1.0.0"}},
	  "instructions": "This server provides weather and resource utilities. Prefer `+"`get_weather`"+` for forecast lookups.",
	  "ttlMs": 3600000,
	  "cacheScope": "public"
	}`, "")
	if r.Cache == nil || r.Cache.TTLMs != 3600000 || r.Cache.CacheScope != CachePublic {
		t.Errorf("cache hints decoded as %+v", r.Cache)
	}
	if r.ResultType != ResultComplete || r.Capabilities.Tools == nil {
		t.Errorf("discover result decoded as %+v", r)
	}
	// The tasks extension example from SEP-2663.
	roundTrip[DiscoverResult](t, `{"resultType":"complete","supportedVersions":["2026-07-28"],
		"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},
		"ttlMs":3600000,"cacheScope":"public",
		"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`, "")
}

func TestDiscoverParamsCarryRequestMeta(t *testing.T) {
	// Spec example: DiscoverRequest params.
	p := roundTrip[DiscoverParams](t, `{"_meta":{
	  "io.modelcontextprotocol/protocolVersion":"2026-07-28",
	  "io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},
	  "io.modelcontextprotocol/clientCapabilities":{}}}`, "")
	if v, err := p.Meta.ProtocolVersion(); err != nil || v != LatestVersion {
		t.Errorf("ProtocolVersion() = %q, %v", v, err)
	}
}
