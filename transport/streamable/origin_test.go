package streamable

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/weftmcp/weft/transport/sse"
)

// onPublicAddress passes each request to next as if its connection had
// been accepted on 192.0.2.10:8080, an address that is not loopback: the
// Handler sees what it sees behind `--http 0.0.0.0:8080`, while the
// traffic stays on the loopback interface.
func onPublicAddress(next http.Handler) http.Handler {
	public := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 8080}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, public)))
	})
}

// wantNoCORS fails the test if resp carries any CORS header.
func wantNoCORS(t *testing.T, resp *http.Response) {
	t.Helper()
	for k := range resp.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("a refused origin got the CORS header %s: %q", k, resp.Header.Get(k))
		}
	}
}

// Servers MUST validate the Origin header on all incoming connections and
// answer 403 when it is present and invalid: on a public address too, a
// page of a foreign origin is refused (preflight included) with no CORS
// headers, while requests without Origin (clients that are not browsers),
// pages of the local machine and the allowed origins are served.
func TestForeignOriginIsRefusedOnEveryInterface(t *testing.T) {
	_, url := serveBehind(t, newFixture(t), nil, onPublicAddress)
	for _, origin := range []string{"http://evil.example", "http://mcp.example.com:8080", "null"} {
		resp := publicCall(t, url, origin)
		wantError(t, resp, http.StatusForbidden, codeTransport)
		wantNoCORS(t, resp)
		preflight := do(t, "OPTIONS", url, hdr{"Host": "mcp.example.com:8080", "Origin": origin, "Access-Control-Request-Method": "POST"}, "")
		wantError(t, preflight, http.StatusForbidden, codeTransport)
		wantNoCORS(t, preflight)
	}
	init := do(t, "POST", url, hdr{"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Origin": "http://evil.example"},
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	wantError(t, init, http.StatusForbidden, codeTransport)
	if init.Header.Get("Mcp-Session-Id") != "" {
		t.Error("a refused origin got a session")
	}

	wantResponse(t, publicCall(t, url, ""))
	wantAdmitted(t, publicCall(t, url, "http://localhost:6274"), "http://localhost:6274")
}

// The allowed origins are admitted on every interface, besides the local
// machine's.
func TestAllowedOriginsOnAPublicAddress(t *testing.T) {
	_, url := serveBehind(t, newFixture(t), &HandlerOptions{Origins: sse.OriginPolicy{AllowedOrigins: []string{"https://app.example.com"}}}, onPublicAddress)
	wantAdmitted(t, publicCall(t, url, "https://APP.example.com"), "https://APP.example.com")
	wantAdmitted(t, publicCall(t, url, "http://127.0.0.1:6274"), "http://127.0.0.1:6274")
	wantError(t, publicCall(t, url, "https://app.example.com.evil.example"), http.StatusForbidden, codeTransport)
}

// publicCall sends a modern tools/call to the server at url, named by a
// public host name, from a page of origin ("" for no Origin header).
func publicCall(t *testing.T, url, origin string) *http.Response {
	t.Helper()
	h := modernHeaders("tools/call", "echo")
	h["Host"] = "mcp.example.com:8080"
	if origin != "" {
		h["Origin"] = origin
	}
	return do(t, "POST", url, h, modernBody("1", "tools/call", `"name":"echo"`))
}

// wantAdmitted fails the test unless resp answers a request from a page
// of origin, which may read it.
func wantAdmitted(t *testing.T, resp *http.Response, origin string) {
	t.Helper()
	wantResponse(t, resp)
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != origin {
		t.Errorf("origin %s: Access-Control-Allow-Origin %q", origin, got)
	}
}
