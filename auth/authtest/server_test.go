package authtest_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/authtest"
	"github.com/weftmcp/weft/auth/oauthclient"
)

// protected serves "hello, <subject>" behind an auth.ResourceServer whose
// tokens come from as; it returns the resource's URL.
func protected(t *testing.T, as *authtest.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	resource := "http://" + ln.Addr().String() + "/mcp"
	verifier, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: as.URL, Audience: resource, Algorithms: []string{"ES256"}})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{as.URL}, Verifier: verifier})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: rs.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello, "+auth.PrincipalFrom(r.Context()))
	}))}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return resource
}

func get(t *testing.T, hc *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := hc.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A real client (oauthclient) gets through a real resource server with
// the server's tokens: discovery, registration, authorization with PKCE, a
// token for the resource, and a refresh token.
func TestAClientIsAuthorizedEndToEnd(t *testing.T) {
	as := authtest.NewServer(&authtest.Options{Subject: "ada"})
	defer as.Close()
	resource := protected(t, as)
	if code, _ := get(t, http.DefaultClient, resource); code != http.StatusUnauthorized {
		t.Fatalf("without a token: %d, want 401", code)
	}
	authorizer, err := oauthclient.NewHeadless("http://127.0.0.1:1/callback", nil)
	if err != nil {
		t.Fatal(err)
	}
	store := &oauthclient.MemoryStore{}
	oc, err := oauthclient.New(oauthclient.Config{Authorizer: authorizer, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: oc.Transport(nil)}
	code, body := get(t, hc, resource)
	if code != http.StatusOK || !strings.HasSuffix(body, "ada") {
		t.Fatalf("with the client: %d %q, want 200 for ada", code, body)
	}
	if n := as.Authorizations(); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}
	tok, err := store.Token(context.Background(), as.URL, resource)
	if err != nil || tok == nil || tok.RefreshToken == "" || tok.Expiry.IsZero() {
		t.Errorf("stored token %+v, %v; want one with a refresh token and an expiry", tok, err)
	}
}

// Token mints what the token endpoint would issue, for tests that need no
// client; the resource server checks its audience.
func TestTokenIsAcceptedForItsAudienceOnly(t *testing.T) {
	as := authtest.NewServer(nil)
	defer as.Close()
	resource := protected(t, as)
	call := func(token string) int {
		req, _ := http.NewRequest(http.MethodGet, resource, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := call(as.Token("bob", resource)); code != http.StatusOK {
		t.Errorf("a token for the resource: %d, want 200", code)
	}
	if code := call(as.Token("bob", "http://127.0.0.1:1/other")); code != http.StatusUnauthorized {
		t.Errorf("a token for another resource: %d, want 401", code)
	}
}

// The authorization endpoint refuses what a real one would: an unknown
// client, an unregistered redirect URI, a request without PKCE.
func TestAuthorizeRefusesBadRequests(t *testing.T) {
	as := authtest.NewServer(nil)
	defer as.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := http.Post(as.URL+"/register", "application/json", strings.NewReader(`{"redirect_uris":["http://127.0.0.1:8000/callback"]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := between(string(b), `"client_id":"`, `"`)
	authorize := func(q url.Values) *http.Response {
		resp, err := noRedirect.Get(as.URL + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	good := url.Values{"response_type": {"code"}, "client_id": {id}, "redirect_uri": {"http://127.0.0.1:9999/callback"},
		"state": {"s"}, "code_challenge": {"abc"}, "code_challenge_method": {"S256"}}
	if r := authorize(good); r.StatusCode != http.StatusFound || !strings.Contains(r.Header.Get("Location"), "code=") {
		t.Errorf("a good request (loopback redirect on another port): %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	for name, change := range map[string]func(url.Values){
		"unknown client":  func(q url.Values) { q.Set("client_id", "nobody") },
		"other redirect":  func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:9999/elsewhere") },
		"no PKCE":         func(q url.Values) { q.Del("code_challenge") },
		"plain challenge": func(q url.Values) { q.Set("code_challenge_method", "plain") },
	} {
		q := url.Values{}
		for k, v := range good {
			q[k] = v
		}
		change(q)
		r := authorize(q)
		if r.StatusCode == http.StatusFound && strings.Contains(r.Header.Get("Location"), "code=") {
			t.Errorf("%s: answered with a code: %s", name, r.Header.Get("Location"))
		}
	}
}

// between returns the text of s after prefix and up to end.
func between(s, prefix, end string) string {
	_, after, _ := strings.Cut(s, prefix)
	v, _, _ := strings.Cut(after, end)
	return v
}

// A pre-registered client gets a token for itself with its secret, and the
// resource server takes it; a wrong secret gets none.
func TestClientCredentials(t *testing.T) {
	as := authtest.NewServer(&authtest.Options{Clients: map[string]string{"robot": "s3cret"}})
	defer as.Close()
	resource := protected(t, as)
	oc, err := oauthclient.New(oauthclient.Config{Grant: oauthclient.GrantClientCredentials,
		Clients: []oauthclient.ClientInfo{{Issuer: as.URL, ClientID: "robot", ClientSecret: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	code, body := get(t, &http.Client{Transport: oc.Transport(nil)}, resource)
	if code != http.StatusOK || !strings.HasSuffix(body, "robot") {
		t.Fatalf("with client credentials: %d %q, want 200 for the client itself", code, body)
	}
	resp, err := http.PostForm(as.URL+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {"robot"}, "client_secret": {"wrong"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong secret: %d, want 401", resp.StatusCode)
	}
}
