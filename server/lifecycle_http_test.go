package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/weftmcp/weft/mcp"
)

func TestInitializeHTTP_RequiredParamsMustBePresentAndOpenNoSession(t *testing.T) {
	url := mount(t, fullServer(t, nil))
	for _, params := range []string{``, `,"params":{}`, `,"params":{"protocolVersion":"2025-11-25"}`} {
		resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize"`+params+`}`, nil)
		msg := nextMessage(t, messages(t, resp))
		if member(t, msg, "error", "code") != "-32602" || !strings.Contains(member(t, msg, "error", "message"), "clientInfo") {
			t.Errorf("initialize with params %q: %s %s, want -32602 naming clientInfo", params, resp.Status, msg)
		}
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			hdr := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": mcp.Version20251125}
			if r := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, hdr); r.StatusCode != http.StatusNotFound {
				t.Errorf("the session of a refused initialize answers ping: %s, want 404", r.Status)
			}
		}
	}
	resp := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	if msg := nextMessage(t, messages(t, resp)); member(t, msg, "result", "protocolVersion") != `"2025-11-25"` || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("a complete initialize: %s %s", resp.Status, msg)
	}
}

func TestInitializeHTTP_TheNegotiatedVersionGovernsWhateverTheHeaderSays(t *testing.T) {
	// A client that negotiated 2025-06-18 but sends MCP-Protocol-Version
	// 2025-03-26 is served, as 2025-06-18: its tool results keep the
	// structuredContent 2025-03-26 does not have.
	url := mount(t, toolServer(t))
	init := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	nextMessage(t, messages(t, init))
	hdr := map[string]string{"Mcp-Session-Id": init.Header.Get("Mcp-Session-Id"), "MCP-Protocol-Version": mcp.Version20250326}
	if r := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); r.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized with an older supported MCP-Protocol-Version: %s, want 202", r.Status)
	}
	resp := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, hdr)
	if msg := nextMessage(t, messages(t, resp)); resp.StatusCode != http.StatusOK || member(t, msg, "result", "structuredContent") != `{"echo":"hi"}` {
		t.Errorf("tools/call with MCP-Protocol-Version 2025-03-26 in a 2025-06-18 session: %s %s, want the 2025-06-18 result", resp.Status, msg)
	}
}
