package oauthclient_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/oauthclient"
)

// customMCP is an MCP endpoint with hand-made protected resource metadata
// and challenges, for the discovery variants package auth does not serve.
type customMCP struct {
	srv  *httptest.Server
	base string
	url  string

	mu   sync.Mutex
	hits []string // metadata paths requested
}

// newCustomMCP serves metadata naming resource and as at prmPaths, and
// answers unauthenticated requests with challenge; "{base}" in either is
// replaced by the server's URL.
func newCustomMCP(t *testing.T, as *testAS, prmPaths []string, resource, challenge string) *customMCP {
	t.Helper()
	m := &customMCP{}
	var v *auth.JWTVerifier
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" {
			m.mu.Lock()
			m.hits = append(m.hits, r.URL.Path)
			m.mu.Unlock()
			if !slices.Contains(prmPaths, r.URL.Path) {
				http.NotFound(w, r)
				return
			}
			writeJSON(w, http.StatusOK, auth.ProtectedResourceMetadata{
				Resource:             strings.ReplaceAll(resource, "{base}", m.base),
				AuthorizationServers: []string{as.issuer},
			})
			return
		}
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			if _, err := v.Verify(r.Context(), tok); err == nil {
				writeJSON(w, http.StatusOK, mcpReply{})
				return
			}
		}
		w.Header().Set("WWW-Authenticate", strings.ReplaceAll(challenge, "{base}", m.base))
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(m.srv.Close)
	m.base, m.url = m.srv.URL, m.srv.URL+"/mcp"
	v = jwtVerifier(t, as, strings.ReplaceAll(resource, "{base}", m.base))
	return m
}

func (m *customMCP) metadataHits() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.hits)
}

const (
	suffixedPRM = "/.well-known/oauth-protected-resource/mcp"
	rootPRM     = "/.well-known/oauth-protected-resource"
)

func TestDiscovery_Variants(t *testing.T) {
	for _, tc := range []struct {
		name      string
		as        asOptions
		prmPaths  []string
		resource  string
		challenge string
		wantHits  []string
	}{
		{"path-suffixed well-known, not in the challenge", asOptions{}, []string{suffixedPRM, rootPRM}, "{base}/mcp", "Bearer", []string{suffixedPRM}},
		{"root well-known naming the origin", asOptions{}, []string{rootPRM}, "{base}", `Bearer error="invalid_token"`, []string{suffixedPRM, rootPRM}},
		{"custom URL from the challenge", asOptions{}, []string{"/custom/location.json"}, "{base}/mcp", `Bearer resource_metadata="{base}/custom/location.json"`, []string{"/custom/location.json"}},
		{"issuer with a path: RFC 8414 path insertion", asOptions{path: "/tenant1"}, []string{suffixedPRM}, "{base}/mcp", "Bearer", []string{suffixedPRM}},
		{"issuer with a path: OpenID Connect appended", asOptions{path: "/tenant2", openIDOnly: true}, []string{suffixedPRM}, "{base}/mcp", "Bearer", []string{suffixedPRM}},
		{"issuer without a path: OpenID Connect", asOptions{openIDOnly: true}, []string{suffixedPRM}, "{base}/mcp", "Bearer", []string{suffixedPRM}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newTestAS(t, tc.as)
			m := newCustomMCP(t, as, tc.prmPaths, tc.resource, tc.challenge)
			mustReply(t, newClient(t, oauthclient.Config{}), m.url)
			if got := m.metadataHits(); !slices.Equal(got, tc.wantHits) {
				t.Errorf("metadata requests %v, want %v", got, tc.wantHits)
			}
			// The resource goes out exactly as published, with no slash added.
			want := strings.ReplaceAll(tc.resource, "{base}", m.base)
			if got := as.auths()[0].Get("resource"); got != want {
				t.Errorf("resource = %q, want %q", got, want)
			}
		})
	}
}

func TestDiscovery_ResourceMismatch(t *testing.T) {
	for name, resource := range map[string]string{
		"other origin":      "https://evil.example.com/mcp",
		"other port":        "http://127.0.0.1:1/mcp",
		"sibling path":      "{base}/other",
		"longer path":       "{base}/mcp/deeper",
		"prefix not on a /": "{base}/mc",
	} {
		t.Run(name, func(t *testing.T) {
			as := newTestAS(t, asOptions{})
			m := newCustomMCP(t, as, []string{suffixedPRM}, resource, "Bearer")
			mustFail(t, newClient(t, oauthclient.Config{}), m.url, oauthclient.ErrResourceMismatch)
			if len(as.regs())+len(as.auths()) != 0 {
				t.Error("the client proceeded to authorization")
			}
		})
	}
}

// legacyAS is an authorization server that also serves the MCP endpoint,
// which publishes no protected resource metadata, as under 2025-03-26.
func legacyAS(t *testing.T, o asOptions) (*testAS, string) {
	t.Helper()
	var v *auth.JWTVerifier
	o.mcp = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			if _, err := v.Verify(r.Context(), tok); err == nil {
				writeJSON(w, http.StatusOK, mcpReply{})
				return
			}
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	as := newTestAS(t, o)
	endpoint := as.srv.URL + "/mcp"
	v = jwtVerifier(t, as, endpoint)
	return as, endpoint
}

func TestDiscovery_LegacyFallbacks(t *testing.T) {
	t.Run("metadata at the origin", func(t *testing.T) {
		as, endpoint := legacyAS(t, asOptions{})
		mustReply(t, newClient(t, oauthclient.Config{}), endpoint)
		if got := as.auths()[0].Get("resource"); got != endpoint {
			t.Errorf("resource = %q, want the endpoint %q", got, endpoint)
		}
	})
	t.Run("default endpoints", func(t *testing.T) {
		as, endpoint := legacyAS(t, asOptions{noMetadata: true})
		mustReply(t, newClient(t, oauthclient.Config{}), endpoint)
		if len(as.regs()) != 1 || len(as.auths()) != 1 || len(as.tokens()) != 1 {
			t.Errorf("/register, /authorize and /token not each used once: %d %d %d", len(as.regs()), len(as.auths()), len(as.tokens()))
		}
	})
}
