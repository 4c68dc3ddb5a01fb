package websocket_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/authtest"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport/streamable"
	"github.com/weftmcp/weft/transport/websocket"
)

// serveProtected serves the test server behind the auth middleware, with
// tokens from as, the secret tool needing the admin scope. It returns the
// ws:// URL and the resource its tokens must name.
func serveProtected(t *testing.T, as *authtest.Server) (url, resource string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	resource = "http://" + ln.Addr().String() + "/mcp"
	verifier, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.URL, Audience: resource, Algorithms: []string{"ES256"}})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{as.URL}, Verifier: verifier,
		ToolScopes: map[string][]string{"secret": {"admin"}}})
	if err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(newServer(), nil)
	hs := &http.Server{Handler: rs.Handler(h)}
	go hs.Serve(ln)
	t.Cleanup(func() {
		hs.Close()
		h.Shutdown(ctxFor(t))
	})
	return "ws://" + ln.Addr().String() + "/mcp", resource
}

// bearer returns an upgrade header carrying token.
func bearer(token string) *websocket.DialOptions {
	return &websocket.DialOptions{Header: http.Header{"Authorization": {"Bearer " + token}}}
}

// An upgrade without a token gets the middleware's 401 with its challenge;
// with one, the session belongs to the token's principal.
func TestUpgradeWithoutATokenIsRefusedWith401(t *testing.T) {
	as := authtest.NewServer(nil)
	defer as.Close()
	url, resource := serveProtected(t, as)

	_, err := websocket.Dial(ctxFor(t), url, nil)
	var refused *websocket.RefusedError
	if !errors.As(err, &refused) || refused.StatusCode != http.StatusUnauthorized ||
		!strings.Contains(refused.Header.Get("WWW-Authenticate"), "resource_metadata") {
		t.Fatalf("Dial without a token: %v; want 401 with a Bearer challenge", err)
	}
	_, err = websocket.Dial(ctxFor(t), url, bearer("not-a-token"))
	if !errors.As(err, &refused) || refused.StatusCode != http.StatusUnauthorized {
		t.Fatalf("Dial with an invalid token: %v; want 401", err)
	}

	s := connect(t, url, bearer(as.Token("ada", resource)))
	got, err := callText(t, s, "whoami")
	if err != nil || !strings.Contains(got, "#sub:ada") {
		t.Fatalf("whoami = %q, %v; want the token's principal", got, err)
	}
}

// A request the token lacks a scope for is answered with an error naming
// the scope, as a POST would get 403; the connection carries on.
func TestRequestBeyondTheTokensScopesIsRefused(t *testing.T) {
	as := authtest.NewServer(nil)
	defer as.Close()
	url, resource := serveProtected(t, as)

	s := connect(t, url, bearer(as.Token("ada", resource)))
	_, err := callText(t, s, "secret")
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != -32000 || !strings.Contains(re.Message, `"admin"`) {
		t.Fatalf("secret without the admin scope: %v; want -32000 naming the scope", err)
	}
	if _, err := callText(t, s, "whoami"); err != nil {
		t.Fatalf("whoami after the refusal: %v", err)
	}

	admin := connect(t, url, bearer(as.Token("grace", resource, "admin")))
	if got, err := callText(t, admin, "secret"); err != nil || got != "the secret" {
		t.Fatalf("secret with the admin scope = %q, %v", got, err)
	}
}
