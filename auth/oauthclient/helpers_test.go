package oauthclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/oauthclient"
)

// headlessRedirect is the redirect URI the conformance suite's example
// clients use; nothing listens there.
const headlessRedirect = "http://localhost:3000/callback"

// mcpReply is what the test MCP endpoint answers an authorized request with.
type mcpReply struct {
	Principal string   `json:"principal"`
	Scopes    []string `json:"scopes"`
	Body      string   `json:"body"`
}

// mcpHandler authorizes by the Mcp-Method and Mcp-Name headers, as the
// streamable HTTP handler does, and echoes the caller and the body.
var mcpHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if err := auth.Authorize(r.Context(), r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name")); err != nil {
		auth.WriteError(w, err)
		return
	}
	body, _ := io.ReadAll(r.Body)
	writeJSON(w, http.StatusOK, mcpReply{
		Principal: auth.PrincipalFrom(r.Context()),
		Scopes:    auth.TokenInfoFrom(r.Context()).Scopes,
		Body:      string(body),
	})
})

// mcpServer is an MCP endpoint protected by package auth, trusting one
// testAS at a time.
type mcpServer struct {
	srv *httptest.Server
	url string
	rs  atomic.Pointer[auth.ResourceServer]
	cfg auth.Config
	// revoked tokens are refused with 401 invalid_token before the
	// resource server sees them.
	revoked sync.Map
}

func newMCPServer(t *testing.T, as *testAS, cfg auth.Config) *mcpServer {
	t.Helper()
	ms := &mcpServer{cfg: cfg}
	ms.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs := ms.rs.Load()
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			if _, revoked := ms.revoked.Load(tok); revoked {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+rs.MetadataURL()+`"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
		}
		rs.Handler(mcpHandler).ServeHTTP(w, r)
	}))
	t.Cleanup(ms.srv.Close)
	ms.url = ms.srv.URL + "/mcp"
	ms.trust(t, as)
	return ms
}

// trust makes the endpoint publish as as its authorization server and
// accept only its tokens.
func (ms *mcpServer) trust(t *testing.T, as *testAS) {
	t.Helper()
	cfg := ms.cfg
	cfg.Resource = ms.url
	cfg.AuthorizationServers = []string{as.issuer}
	cfg.Verifier = jwtVerifier(t, as, ms.url)
	rs, err := auth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ms.rs.Store(rs)
}

func jwtVerifier(t *testing.T, as *testAS, audience string) *auth.JWTVerifier {
	t.Helper()
	v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.issuer, Audience: audience, JWKSURL: as.issuer + "/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// newClient returns a client with a headless authorizer unless cfg has an
// Authorizer or another grant.
func newClient(t *testing.T, cfg oauthclient.Config) *oauthclient.Client {
	t.Helper()
	if cfg.Authorizer == nil && (cfg.Grant == "" || cfg.Grant == oauthclient.GrantAuthorizationCode) {
		h, err := oauthclient.NewHeadless(headlessRedirect, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Authorizer = h
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "weft test client"
	}
	c, err := oauthclient.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// post sends body to u through c's transport with headers as name/value
// pairs.
func post(t *testing.T, c *oauthclient.Client, u, body string, headers ...string) (*http.Response, error) {
	t.Helper()
	return postBody(t, c, u, strings.NewReader(body), headers...)
}

func postBody(t *testing.T, c *oauthclient.Client, u string, body io.Reader, headers ...string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, u, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	hc := &http.Client{Transport: c.Transport(nil)}
	resp, err := hc.Do(req)
	if err == nil {
		t.Cleanup(func() { resp.Body.Close() })
	}
	return resp, err
}

// mustReply sends a request that must succeed and returns the reply.
func mustReply(t *testing.T, c *oauthclient.Client, u string, headers ...string) mcpReply {
	t.Helper()
	resp, err := post(t, c, u, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, headers...)
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("HTTP %d: %s (WWW-Authenticate %q)", resp.StatusCode, b, resp.Header.Get("WWW-Authenticate"))
	}
	var r mcpReply
	if err := json.UnmarshalRead(resp.Body, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// mustFail sends a request that must fail with an error wrapping want.
func mustFail(t *testing.T, c *oauthclient.Client, u string, want error) error {
	t.Helper()
	resp, err := post(t, c, u, `{}`)
	if err == nil {
		t.Fatalf("request succeeded with HTTP %d, want an error wrapping %v", resp.StatusCode, want)
	}
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want one wrapping %v", err, want)
	}
	return err
}

func jsonDecode(resp *http.Response, v any) error {
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return json.UnmarshalRead(resp.Body, v)
}
