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
