package oauthclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/oauthclient"
)

func TestAuthorizationCode_DynamicRegistration(t *testing.T) {
	as := newTestAS(t, asOptions{})
	ms := newMCPServer(t, as, auth.Config{Scopes: []string{"mcp:read"}})
	c := newClient(t, oauthclient.Config{})

	r := mustReply(t, c, ms.url)
	if want := as.issuer + "#sub:user-1"; r.Principal != want {
		t.Errorf("principal = %q, want %q", r.Principal, want)
	}
	regs := as.regs()
	if len(regs) != 1 {
		t.Fatalf("%d registrations, want 1", len(regs))
	}
	reg := regs[0]
	if reg["application_type"] != "native" || reg["client_name"] != "weft test client" ||
		!slices.Contains(asSlice(reg["grant_types"]), any("refresh_token")) ||
		!slices.Equal(asSlice(reg["redirect_uris"]), []any{headlessRedirect}) || reg["token_endpoint_auth_method"] != "none" {
		t.Errorf("registration = %v", reg)
	}
	auths := as.auths()
	if len(auths) != 1 {
		t.Fatalf("%d authorization requests, want 1", len(auths))
	}
	if got := auths[0].Get("scope"); got != "mcp:read" {
		t.Errorf("scope = %q, want the challenge's mcp:read (and no offline_access: the AS does not list it)", got)
	}
	if got := auths[0].Get("resource"); got != ms.url {
		t.Errorf("authorization resource = %q, want %q", got, ms.url)
	}
	toks := as.tokens()
	if len(toks) != 1 || toks[0].grant != "authorization_code" || toks[0].method != "none" || toks[0].form.Get("resource") != ms.url {
		t.Errorf("token requests = %+v", toks)
	}

	// The token is reused.
	mustReply(t, c, ms.url)
	if n := len(as.auths()); n != 1 {
		t.Errorf("%d authorization requests after a second call, want 1", n)
	}
}

func TestAuthorizationCode_ClientIDMetadataDocument(t *testing.T) {
	var doc []byte
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	}))
	defer docs.Close()
	as := newTestAS(t, asOptions{cimd: true, cimdClient: docs.Client()})
	ms := newMCPServer(t, as, auth.Config{})
	clientID := docs.URL + "/oauth/client.json"
	c := newClient(t, oauthclient.Config{ClientIDMetadataURL: clientID})
	var err error
	if doc, err = c.ClientIDMetadataDocument(); err != nil {
		t.Fatal(err)
	}

	mustReply(t, c, ms.url)
	if n := len(as.regs()); n != 0 {
		t.Errorf("%d dynamic registrations; a metadata document client must not register", n)
	}
	if got := as.auths()[0].Get("client_id"); got != clientID {
		t.Errorf("client_id = %q, want the document URL %q", got, clientID)
	}
	if _, err := oauthclient.New(oauthclient.Config{Authorizer: newHeadless(t), ClientIDMetadataURL: "http://x.example/c.json"}); err == nil {
		t.Error("an http client ID metadata URL was accepted")
	}
}

func newHeadless(t *testing.T) *oauthclient.Headless {
	t.Helper()
	h, err := oauthclient.NewHeadless(headlessRedirect, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestAuthorizationCode_PreRegistered(t *testing.T) {
	pre := &asClient{id: "pre-registered-client", secret: "pre-registered-secret", method: "client_secret_basic", redirectURIs: []string{headlessRedirect}}
	as := newTestAS(t, asOptions{noDCR: true, preRegistered: []*asClient{pre}, authMethods: []string{"client_secret_basic"}})
	ms := newMCPServer(t, as, auth.Config{})
	c := newClient(t, oauthclient.Config{Clients: []oauthclient.ClientInfo{
		{Issuer: "https://other.example.com", ClientID: "other-client", ClientSecret: "other-secret"},
		{Issuer: as.issuer, ClientID: "pre-registered-client", ClientSecret: "pre-registered-secret"},
	}})
	mustReply(t, c, ms.url)
	toks := as.tokens()
	if len(toks) != 1 || toks[0].client != "pre-registered-client" || toks[0].method != "client_secret_basic" {
		t.Errorf("token requests = %+v, want one by pre-registered-client with client_secret_basic", toks)
	}
}

func TestAuthorizationCode_IssuerIdentification(t *testing.T) {
	for _, tc := range []struct {
		name        string
		iss         string
		notPromised bool
		ok          bool
	}{
		{"promised and correct", "", false, true},
		{"not promised and absent", "omit", true, true},
		{"promised but absent", "omit", false, false},
		{"promised and wrong", "wrong", false, false},
		{"not promised but wrong", "wrong", true, false},
		{"trailing slash is not normalized away", "slash", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newTestAS(t, asOptions{iss: tc.iss, issNotPromised: tc.notPromised})
			ms := newMCPServer(t, as, auth.Config{})
			c := newClient(t, oauthclient.Config{})
			if tc.ok {
				mustReply(t, c, ms.url)
				return
			}
			mustFail(t, c, ms.url, oauthclient.ErrResponseIssuerMismatch)
			if len(as.auths()) != 1 {
				t.Fatal("the authorization endpoint was not reached")
			}
			if toks := as.tokens(); len(toks) != 0 {
				t.Errorf("the code was sent to the token endpoint: %+v", toks)
			}
		})
	}
}

func TestAuthorizationCode_StateMismatch(t *testing.T) {
	as := newTestAS(t, asOptions{tamperState: true})
	ms := newMCPServer(t, as, auth.Config{})
	mustFail(t, newClient(t, oauthclient.Config{}), ms.url, oauthclient.ErrStateMismatch)
	if toks := as.tokens(); len(toks) != 0 {
		t.Errorf("the code was redeemed despite the wrong state: %+v", toks)
	}
}

func TestAuthorizationCode_MetadataIssuerMismatch(t *testing.T) {
	as := newTestAS(t, asOptions{metadataIssuer: "https://attacker.example.com"})
	ms := newMCPServer(t, as, auth.Config{})
	mustFail(t, newClient(t, oauthclient.Config{}), ms.url, auth.ErrIssuerMismatch)
	if len(as.regs())+len(as.auths())+len(as.tokens()) != 0 {
		t.Error("endpoints from the mismatched metadata were used")
	}
}

func TestAuthorizationCode_RequiresPKCE(t *testing.T) {
	for name, methods := range map[string][]string{"absent": {}, "plain only": {"plain"}} {
		t.Run(name, func(t *testing.T) {
			as := newTestAS(t, asOptions{pkceMethods: methods})
			ms := newMCPServer(t, as, auth.Config{})
			mustFail(t, newClient(t, oauthclient.Config{}), ms.url, oauthclient.ErrPKCEUnsupported)
			if len(as.auths()) != 0 {
				t.Error("authorized without PKCE support")
			}
		})
	}
}

func TestAuthorizationCode_AuthorizationError(t *testing.T) {
	as := newTestAS(t, asOptions{noDCR: true})
	ms := newMCPServer(t, as, auth.Config{})
	err := mustFail(t, newClient(t, oauthclient.Config{}), ms.url, oauthclient.ErrNoClient)
	if !strings.Contains(err.Error(), "Config.Clients") {
		t.Errorf("error does not say what to do: %v", err)
	}

	pre := &asClient{id: "c", secret: "right", method: "client_secret_post", redirectURIs: []string{headlessRedirect}}
	as = newTestAS(t, asOptions{noDCR: true, preRegistered: []*asClient{pre}, authMethods: []string{"client_secret_post"}})
	ms = newMCPServer(t, as, auth.Config{})
	c := newClient(t, oauthclient.Config{Clients: []oauthclient.ClientInfo{{Issuer: as.issuer, ClientID: "c", ClientSecret: "wrong"}}})
	_, err = post(t, c, ms.url, `{}`)
	var oe *oauthclient.OAuthError
	if !errors.As(err, &oe) || oe.Code != "invalid_client" || oe.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong secret: %v, want an OAuthError invalid_client (HTTP 401)", err)
	}
}

func TestRefresh(t *testing.T) {
	// The AS lists offline_access, so the client asks for it, and issues
	// tokens that expire within the client's 30-second margin, so every
	// later request refreshes first.
	as := newTestAS(t, asOptions{scopes: []string{"mcp:read", "offline_access"}, expiresIn: 5})
	ms := newMCPServer(t, as, auth.Config{Scopes: []string{"mcp:read"}})
	c := newClient(t, oauthclient.Config{})
	mustReply(t, c, ms.url)
	if got := as.auths()[0].Get("scope"); got != "mcp:read offline_access" {
		t.Errorf("scope = %q, want mcp:read offline_access", got)
	}
	mustReply(t, c, ms.url)
	mustReply(t, c, ms.url) // the rotated refresh token works too
	var grants []string
	for _, tr := range as.tokens() {
		grants = append(grants, tr.grant)
		if tr.form.Get("resource") != ms.url {
			t.Errorf("%s request without the resource", tr.grant)
		}
	}
	if want := []string{"authorization_code", "refresh_token", "refresh_token"}; !slices.Equal(grants, want) {
		t.Errorf("grants = %v, want %v", grants, want)
	}
	if n := len(as.auths()); n != 1 {
		t.Errorf("%d authorizations, want 1", n)
	}

	// A revoked refresh token falls back to a new authorization.
	as.mu.Lock()
	clear(as.refreshes)
	as.mu.Unlock()
	mustReply(t, c, ms.url)
	if n := len(as.auths()); n != 2 {
		t.Errorf("%d authorizations after revocation, want 2", n)
	}

	// Without offline_access in the AS metadata, it is not requested.
	as2 := newTestAS(t, asOptions{scopes: []string{"mcp:read"}})
	ms2 := newMCPServer(t, as2, auth.Config{Scopes: []string{"mcp:read"}})
	mustReply(t, newClient(t, oauthclient.Config{}), ms2.url)
	if got := as2.auths()[0].Get("scope"); got != "mcp:read" {
		t.Errorf("scope = %q without offline_access support, want mcp:read", got)
	}
}

func TestStepUp_UnionOfScopes(t *testing.T) {
	as := newTestAS(t, asOptions{})
	ms := newMCPServer(t, as, auth.Config{Scopes: []string{"mcp:read"}, ToolScopes: map[string][]string{"deploy": {"deploy:run"}}})
	c := newClient(t, oauthclient.Config{})
	mustReply(t, c, ms.url, "Mcp-Method", "tools/list")
	r := mustReply(t, c, ms.url, "Mcp-Method", "tools/call", "Mcp-Name", "deploy")
	if !slices.Equal(r.Scopes, []string{"mcp:read", "deploy:run"}) {
		t.Errorf("token scopes = %v", r.Scopes)
	}
	auths := as.auths()
	if len(auths) != 2 {
		t.Fatalf("%d authorizations, want 2", len(auths))
	}
	if got := auths[1].Get("scope"); got != "mcp:read deploy:run" {
		t.Errorf("step-up scope = %q, want the union mcp:read deploy:run", got)
	}
	// The stepped-up token serves both.
	mustReply(t, c, ms.url, "Mcp-Method", "tools/list")
	if len(as.auths()) != 2 {
		t.Error("authorized again for scopes the token has")
	}
}

func TestStepUp_NoAuthorizationLoop(t *testing.T) {
	// The AS never grants "admin", which the tool needs.
	as := newTestAS(t, asOptions{grant: func(req []string) []string {
		return slices.DeleteFunc(slices.Clone(req), func(s string) bool { return s == "admin" })
	}})
	ms := newMCPServer(t, as, auth.Config{ToolScopes: map[string][]string{"nuke": {"admin"}}})
	c := newClient(t, oauthclient.Config{})
	for range 3 {
		resp, err := post(t, c, ms.url, `{}`, "Mcp-Method", "tools/call", "Mcp-Name", "nuke")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("HTTP %d, want the server's 403", resp.StatusCode)
		}
	}
	// One authorization for the 401, one step-up; then the client knows
	// asking again cannot help.
	if n := len(as.auths()); n != 2 {
		t.Errorf("%d authorizations, want 2", n)
	}
}

func TestAuthorizationServerMigration(t *testing.T) {
	as1 := newTestAS(t, asOptions{})
	as2 := newTestAS(t, asOptions{})
	ms := newMCPServer(t, as1, auth.Config{Scopes: []string{"mcp:basic"}})
	store := &oauthclient.MemoryStore{}
	c := newClient(t, oauthclient.Config{Store: store})
	if r := mustReply(t, c, ms.url); !strings.HasPrefix(r.Principal, as1.issuer+"#") {
		t.Fatalf("principal %q is not from as1", r.Principal)
	}
	as1Client := as1.tokens()[0].client

	ms.trust(t, as2) // the resource moves to another authorization server
	if r := mustReply(t, c, ms.url); !strings.HasPrefix(r.Principal, as2.issuer+"#") {
		t.Fatalf("principal %q is not from as2", r.Principal)
	}
	if n := len(as2.regs()); n != 1 {
		t.Errorf("%d registrations at the new AS, want 1", n)
	}
	for _, a := range as2.auths() {
		if a.Get("client_id") == as1Client {
			t.Errorf("as1's client ID %q was presented to as2's authorization endpoint", as1Client)
		}
	}
	for _, tr := range as2.tokens() {
		if tr.client == as1Client || tr.form.Get("client_id") == as1Client {
			t.Errorf("as1's client ID %q was presented to as2's token endpoint", as1Client)
		}
	}
	ctx := context.Background()
	c1, _ := store.Client(ctx, as1.issuer)
	c2, _ := store.Client(ctx, as2.issuer)
	if c1 == nil || c2 == nil || c1.ClientID == c2.ClientID || c1.Issuer != as1.issuer || c2.Issuer != as2.issuer {
		t.Errorf("registrations are not kept per issuer: %+v %+v", c1, c2)
	}
	t1, _ := store.Token(ctx, as1.issuer, ms.url)
	t2, _ := store.Token(ctx, as2.issuer, ms.url)
	if t2 == nil || (t1 != nil && t1.AccessToken == t2.AccessToken) {
		t.Errorf("tokens are not kept per issuer: %v %v", t1, t2)
	}
}

func TestConcurrentRequestsShareOneAuthorization(t *testing.T) {
	as := newTestAS(t, asOptions{})
	ms := newMCPServer(t, as, auth.Config{})
	c := newClient(t, oauthclient.Config{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { mustReply(t, c, ms.url) })
	}
	wg.Wait()
	if n, r := len(as.auths()), len(as.regs()); n != 1 || r != 1 {
		t.Errorf("%d authorizations and %d registrations for concurrent requests, want 1 and 1", n, r)
	}
}

func TestTransport_ReplaysBodiesWithoutGetBody(t *testing.T) {
	as := newTestAS(t, asOptions{})
	ms := newMCPServer(t, as, auth.Config{})
	c := newClient(t, oauthclient.Config{})
	const body = `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	// A reader http.NewRequest cannot snapshot, so GetBody is nil.
	resp, err := postBody(t, c, ms.url, struct{ *strings.Reader }{strings.NewReader(body)})
	if err != nil {
		t.Fatal(err)
	}
	var r mcpReply
	if err := jsonDecode(resp, &r); err != nil || r.Body != body {
		t.Errorf("the retried request carried %q (%v), want %q", r.Body, err, body)
	}
}

func TestTransport_LeavesOtherChallengesAlone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	resp, err := post(t, newClient(t, oauthclient.Config{}), srv.URL, `{}`)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("Basic challenge: %v, %v; want the 401 returned as is", resp, err)
	}
}
