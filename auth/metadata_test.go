package auth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
)

func TestProtectedResourceMetadata_ServedAtRootAndPathSuffixed(t *testing.T) {
	p := newProtected(t, auth.Config{
		AuthorizationServers: []string{"https://as.example.com/tenant1"},
		Verifier:             auth.VerifierFunc(func(context.Context, string) (*auth.TokenInfo, error) { return nil, auth.ErrInvalidToken }),
		Scopes:               []string{"mcp:read"},
		ResourceName:         "Test MCP",
	})
	if got, want := p.rs.MetadataURL(), p.srv.URL+"/.well-known/oauth-protected-resource/mcp"; got != want {
		t.Errorf("MetadataURL = %q, want %q", got, want)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(p.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: HTTP %d", path, resp.StatusCode)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: no CORS header", path)
		}
		var m auth.ProtectedResourceMetadata
		if err := json.UnmarshalRead(resp.Body, &m); err != nil {
			t.Fatal(err)
		}
		if want := p.rs.Metadata(); !slices.Equal(m.AuthorizationServers, want.AuthorizationServers) || m.Resource != want.Resource {
			t.Errorf("served %+v, Metadata() = %+v", m, want)
		}
		if m.Resource != p.resource || !slices.Equal(m.AuthorizationServers, []string{"https://as.example.com/tenant1"}) ||
			!slices.Equal(m.ScopesSupported, []string{"mcp:read"}) || !slices.Equal(m.BearerMethodsSupported, []string{"header"}) ||
			m.ResourceName != "Test MCP" {
			t.Errorf("GET %s = %+v", path, m)
		}
	}
	// Other suffixes are not ours, and go through the middleware.
	resp, err := http.Get(p.srv.URL + "/.well-known/oauth-protected-resource/other")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("other suffix: HTTP %d, want 401 from the middleware", resp.StatusCode)
	}
	resp, err = http.Post(p.rs.MetadataURL(), "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST metadata: HTTP %d, want 405", resp.StatusCode)
	}
}

func TestDiscoverAuthorizationServer(t *testing.T) {
	var served []string
	var issuerOverride string
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	doc := func(issuer string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			served = append(served, r.URL.Path)
			iss := issuer
			if issuerOverride != "" {
				iss = issuerOverride
			}
			writeJSON(w, auth.AuthorizationServerMetadata{Issuer: iss, TokenEndpoint: srv.URL + "/token"})
		}
	}
	// RFC 8414 path insertion for tenant1; OpenID appended path for tenant2;
	// OpenID at the root for the root issuer.
	mux.HandleFunc("GET /.well-known/oauth-authorization-server/tenant1", doc(srv.URL+"/tenant1"))
	mux.HandleFunc("GET /tenant2/.well-known/openid-configuration", doc(srv.URL+"/tenant2"))
	mux.HandleFunc("GET /.well-known/openid-configuration", doc(srv.URL))
	ctx := context.Background()

	for _, tc := range []struct{ issuer, path string }{
		{srv.URL + "/tenant1", "/.well-known/oauth-authorization-server/tenant1"},
		{srv.URL + "/tenant2", "/tenant2/.well-known/openid-configuration"},
		{srv.URL, "/.well-known/openid-configuration"},
	} {
		served = nil
		m, err := auth.DiscoverAuthorizationServer(ctx, srv.Client(), tc.issuer)
		if err != nil {
			t.Fatalf("%s: %v", tc.issuer, err)
		}
		if m.Issuer != tc.issuer || !slices.Equal(served, []string{tc.path}) {
			t.Errorf("%s: issuer %q served by %v, want %s", tc.issuer, m.Issuer, served, tc.path)
		}
	}

	issuerOverride = "https://attacker.example.com"
	if _, err := auth.DiscoverAuthorizationServer(ctx, srv.Client(), srv.URL+"/tenant1"); !errors.Is(err, auth.ErrIssuerMismatch) {
		t.Errorf("issuer mismatch: %v, want ErrIssuerMismatch", err)
	}
	issuerOverride = srv.URL + "/tenant1/" // a trailing slash is a different issuer
	if _, err := auth.DiscoverAuthorizationServer(ctx, srv.Client(), srv.URL+"/tenant1"); !errors.Is(err, auth.ErrIssuerMismatch) {
		t.Errorf("trailing slash: %v, want ErrIssuerMismatch", err)
	}
	issuerOverride = ""
	if _, err := auth.DiscoverAuthorizationServer(ctx, srv.Client(), srv.URL+"/none"); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("no metadata: %v, want ErrNotFound", err)
	}
	if _, err := auth.DiscoverAuthorizationServer(ctx, srv.Client(), "http://as.example.com"); err == nil {
		t.Error("plain http issuer off localhost accepted")
	}
}

func TestDiscoverAuthorizationServer_RejectsLooseJSON(t *testing.T) {
	for name, body := range map[string]string{
		"duplicate member":  `{"issuer":"ISS","issuer":"https://attacker.example"}`,
		"insecure endpoint": `{"issuer":"ISS","token_endpoint":"http://as.example.com/token"}`,
	} {
		t.Run(name, func(t *testing.T) {
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(strings.ReplaceAll(body, "ISS", srv.URL)))
			}))
			defer srv.Close()
			if _, err := auth.DiscoverAuthorizationServer(context.Background(), srv.Client(), srv.URL); err == nil {
				t.Error("accepted")
			}
		})
	}
}
