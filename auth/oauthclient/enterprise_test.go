package oauthclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/auth/oauthclient"
)

// enterprise is an identity provider, an MCP authorization server and an
// MCP endpoint for enterprise-managed authorization. Each checks every
// parameter it is sent and records what is wrong.
type enterprise struct {
	idp, as, rs *httptest.Server
	// idpAnswer, when set, replaces the identity provider's answer.
	idpAnswer func(w http.ResponseWriter)

	mu        sync.Mutex
	problems  []string
	exchanges int
	grants    int
}

func (e *enterprise) problem(p string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.problems = append(e.problems, p)
}

// expect records a problem when the form value name is not want.
func (e *enterprise) expect(r *http.Request, name, want string) {
	if got := r.PostForm.Get(name); got != want {
		e.problem(r.URL.Path + ": " + name + " is " + got + ", want " + want)
	}
}

const (
	aliceIDToken = "id-token-of-alice"
	grantedToken = "access-token-for-alice"
)

func newEnterprise(t *testing.T) *enterprise {
	e := &enterprise{}
	e.idp = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.exchanges++
		e.mu.Unlock()
		r.ParseForm()
		e.expect(r, "grant_type", oauthclient.GrantTokenExchange)
		e.expect(r, "requested_token_type", oauthclient.TokenTypeIDJAG)
		e.expect(r, "subject_token", aliceIDToken)
		e.expect(r, "subject_token_type", oauthclient.TokenTypeIDToken)
		e.expect(r, "audience", e.as.URL)
		e.expect(r, "resource", e.rs.URL+"/mcp")
		e.expect(r, "client_id", "idp-client")
		if e.idpAnswer != nil {
			e.idpAnswer(w)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"access_token": "id-jag-for-" + r.PostForm.Get("audience"),
			"issued_token_type": oauthclient.TokenTypeIDJAG, "token_type": "N_A"})
	}))
	t.Cleanup(e.idp.Close)
	asMux := http.NewServeMux()
	e.as = httptest.NewServer(asMux)
	t.Cleanup(e.as.Close)
	asMux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"issuer": e.as.URL, "token_endpoint": e.as.URL + "/token",
			"grant_types_supported":                 []string{oauthclient.GrantJWTBearer},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic"}})
	})
	asMux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.grants++
		e.mu.Unlock()
		r.ParseForm()
		e.expect(r, "grant_type", oauthclient.GrantJWTBearer)
		e.expect(r, "resource", e.rs.URL+"/mcp")
		if id, secret, ok := r.BasicAuth(); !ok || id != "mcp-client" || secret != "s3cret" {
			e.problem("AS token request: not authenticated with client_secret_basic as mcp-client")
		}
		if r.PostForm.Get("assertion") != "id-jag-for-"+e.as.URL {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "the assertion is not an ID-JAG for this server"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"access_token": grantedToken, "token_type": "Bearer", "expires_in": 3600})
	})
	rsMux := http.NewServeMux()
	e.rs = httptest.NewServer(rsMux)
	t.Cleanup(e.rs.Close)
	rsMux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": e.rs.URL + "/mcp", "authorization_servers": []string{e.as.URL}})
	})
	rsMux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+grantedToken {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+e.rs.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"result": "ok"})
	})
	return e
}

// client returns an enterprise-managed client of e.
func (e *enterprise) client(t *testing.T) *oauthclient.Client {
	return newClient(t, oauthclient.Config{
		Grant: oauthclient.GrantJWTBearer,
		IdentityProvider: &oauthclient.IdentityProvider{
			Issuer:        e.idp.URL,
			TokenEndpoint: e.idp.URL + "/token",
			Client:        oauthclient.ClientInfo{ClientID: "idp-client"},
			SubjectToken:  func(context.Context) (string, error) { return aliceIDToken, nil },
		},
		Clients: []oauthclient.ClientInfo{{ClientID: "mcp-client", ClientSecret: "s3cret"}},
	})
}

func (e *enterprise) checkProblems(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range e.problems {
		t.Error(p)
	}
}

// The client exchanges the user's ID token at the identity provider for an
// ID-JAG naming the MCP server's authorization server and resource, and
// presents it there with the JWT bearer grant, authenticated as its client
// at that server.
func TestEnterpriseManagedAuthorization(t *testing.T) {
	e := newEnterprise(t)
	c := e.client(t)
	for range 2 {
		resp, err := post(t, c, e.rs.URL+"/mcp", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d, want 200", resp.StatusCode)
		}
	}
	e.checkProblems(t)
	if e.exchanges != 1 || e.grants != 1 {
		t.Errorf("%d token exchanges and %d JWT bearer grants for two requests; want one each, the token reused", e.exchanges, e.grants)
	}
}

// Each way enterprise-managed authorization can fail says which step failed
// and what the server answered.
func TestEnterpriseManagedAuthorizationFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   []string
	}{
		{"identity provider refuses", func(w http.ResponseWriter) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "the user may not use this server"})
		}, []string{"identity provider token endpoint", "invalid_grant", "the user may not use this server"}},
		{"identity provider issues another token type", func(w http.ResponseWriter) {
			writeJSON(w, http.StatusOK, map[string]string{"access_token": "x", "issued_token_type": oauthclient.TokenTypeAccessToken})
		}, []string{"not an ID-JAG", oauthclient.TokenTypeAccessToken}},
		{"authorization server refuses the ID-JAG", func(w http.ResponseWriter) {
			writeJSON(w, http.StatusOK, map[string]string{"access_token": "id-jag-for-somewhere-else", "issued_token_type": oauthclient.TokenTypeIDJAG})
		}, []string{"token endpoint", "invalid_grant", "not an ID-JAG for this server"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnterprise(t)
			e.idpAnswer = tc.answer
			_, err := post(t, e.client(t), e.rs.URL+"/mcp", `{}`)
			if err == nil {
				t.Fatal("the request went through")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			var oe *oauthclient.OAuthError
			if tc.name != "identity provider issues another token type" && !errors.As(err, &oe) {
				t.Errorf("error %v is not an *OAuthError", err)
			}
			e.checkProblems(t)
		})
	}
}

// A client configured for enterprise-managed authorization without what it
// needs is refused at construction.
func TestEnterpriseManagedAuthorizationConfig(t *testing.T) {
	for _, idp := range []oauthclient.IdentityProvider{
		{Client: oauthclient.ClientInfo{ClientID: "c"}, SubjectToken: func(context.Context) (string, error) { return "", nil }},
		{TokenEndpoint: "https://idp.example/token", Client: oauthclient.ClientInfo{ClientID: "c"}},
		{TokenEndpoint: "https://idp.example/token", SubjectToken: func(context.Context) (string, error) { return "", nil }},
	} {
		if _, err := oauthclient.New(oauthclient.Config{Grant: oauthclient.GrantJWTBearer, IdentityProvider: &idp}); err == nil {
			t.Errorf("New accepted IdentityProvider %+v", idp)
		}
	}
}
