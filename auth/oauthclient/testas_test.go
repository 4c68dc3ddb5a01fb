package oauthclient_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
)

// asKey signs the test authorization servers' access tokens; RSA key
// generation is slow under -race, so it is made once.
var asKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// asOptions shape a testAS.
type asOptions struct {
	path           string // issuer path, such as "/tenant1"
	metadataIssuer string // issuer the metadata claims, if not the real one
	openIDOnly     bool   // serve only OpenID Connect discovery
	iss            string // iss in responses: "" (correct), "omit", "wrong", "slash"
	issNotPromised bool   // omit authorization_response_iss_parameter_supported
	pkceMethods    []string
	cimd           bool // client_id_metadata_document_supported
	cimdClient     *http.Client
	noDCR          bool
	authMethods    []string
	scopes         []string                // scopes_supported
	grant          func([]string) []string // scopes granted for those requested
	expiresIn      int
	expiresAsText  bool // send expires_in as a JSON string, as some servers do
	tamperState    bool
	assertion      string // the JWT bearer assertion accepted
	preRegistered  []*asClient
	noMetadata     bool         // publish no metadata (2025-03-26 defaults)
	mcp            http.Handler // served at /mcp on the same origin
	dpop           bool         // issue DPoP-bound tokens to requests with a proof
}

// asClient is a client the test AS knows.
type asClient struct {
	id, secret, method string
	redirectURIs       []string
	key                crypto.PublicKey // private_key_jwt
}

type codeGrant struct {
	client, redirect, challenge, resource string
	scopes                                []string
}

type tokenRequest struct {
	grant, client, method string
	form                  url.Values
	dpop                  bool // it carried a DPoP proof
}

// testAS is an OAuth 2.1 authorization server on 127.0.0.1 that checks
// what a real one checks (registered redirect URIs, PKCE S256, client
// authentication by the registered method, single-use codes, CIMD
// documents) and issues RS256 JWT access tokens for the requested resource.
type testAS struct {
	t      *testing.T
	o      asOptions
	srv    *httptest.Server
	issuer string

	mu            sync.Mutex
	clients       map[string]*asClient
	codes         map[string]*codeGrant
	refreshes     map[string]*codeGrant
	registrations []map[string]any
	authRequests  []url.Values
	tokenRequests []tokenRequest
	nextID        int
}

func newTestAS(t *testing.T, o asOptions) *testAS {
	t.Helper()
	as := &testAS{t: t, o: o, clients: map[string]*asClient{}, codes: map[string]*codeGrant{}, refreshes: map[string]*codeGrant{}}
	for _, c := range o.preRegistered {
		as.clients[c.id] = c
	}
	if as.o.pkceMethods == nil {
		as.o.pkceMethods = []string{"S256"}
	}
	if as.o.authMethods == nil {
		as.o.authMethods = []string{"none", "client_secret_basic", "client_secret_post", "private_key_jwt"}
	}
	if as.o.expiresIn == 0 {
		as.o.expiresIn = 3600
	}
	mux := http.NewServeMux()
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	as.issuer = as.srv.URL + o.path
	switch {
	case o.noMetadata:
	case o.openIDOnly:
		mux.HandleFunc("GET "+o.path+"/.well-known/openid-configuration", as.metadata)
	default:
		mux.HandleFunc("GET /.well-known/oauth-authorization-server"+o.path, as.metadata)
	}
	if o.mcp != nil {
		mux.Handle("/mcp", o.mcp)
	}
	mux.HandleFunc("GET "+o.path+"/authorize", as.authorize)
	mux.HandleFunc("POST "+o.path+"/token", as.token)
	mux.HandleFunc("POST "+o.path+"/register", as.register)
	mux.HandleFunc("GET "+o.path+"/jwks", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &asKey().PublicKey, KeyID: "as-key", Algorithm: "RS256", Use: "sig"}}})
	})
	return as
}

func (as *testAS) metadata(w http.ResponseWriter, r *http.Request) {
	m := auth.AuthorizationServerMetadata{
		Issuer:                                     as.issuer,
		AuthorizationEndpoint:                      as.issuer + "/authorize",
		TokenEndpoint:                              as.issuer + "/token",
		JWKSURI:                                    as.issuer + "/jwks",
		ScopesSupported:                            as.o.scopes,
		ResponseTypesSupported:                     []string{"code"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"},
		TokenEndpointAuthMethodsSupported:          as.o.authMethods,
		CodeChallengeMethodsSupported:              as.o.pkceMethods,
		ClientIDMetadataDocumentSupported:          as.o.cimd,
		AuthorizationResponseIssParameterSupported: !as.o.issNotPromised,
	}
	if as.o.dpop {
		m.DPoPSigningAlgValuesSupported = []string{"ES256"}
	}
	if len(as.o.pkceMethods) == 0 {
		m.CodeChallengeMethodsSupported = nil
	}
	if !as.o.noDCR {
		m.RegistrationEndpoint = as.issuer + "/register"
	}
	if as.o.metadataIssuer != "" {
		m.Issuer = as.o.metadataIssuer
	}
	writeJSON(w, http.StatusOK, m)
}

func (as *testAS) register(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if err := json.UnmarshalRead(r.Body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata", "error_description": err.Error()})
		return
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	as.registrations = append(as.registrations, req)
	if at := req["application_type"]; at != "native" && at != "web" {
		as.t.Errorf("AS: registration has application_type %v, want native or web", at)
	}
	var redirects []string
	for _, u := range asSlice(req["redirect_uris"]) {
		redirects = append(redirects, fmt.Sprint(u))
	}
	method, _ := req["token_endpoint_auth_method"].(string)
	as.nextID++
	c := &asClient{id: fmt.Sprintf("dcr-%s-%d", randomID()[:8], as.nextID), method: method, redirectURIs: redirects}
	resp := map[string]any{"client_id": c.id, "token_endpoint_auth_method": method, "redirect_uris": redirects}
	if method != "none" {
		c.secret = fmt.Sprintf("dcr-secret-%d", as.nextID)
		resp["client_secret"] = c.secret
	}
	as.clients[c.id] = c
	writeJSON(w, http.StatusCreated, resp)
}

func (as *testAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	as.authRequests = append(as.authRequests, q)
	as.mu.Unlock()
	fail := func(format string, args ...any) {
		as.t.Errorf("AS authorize: "+format, args...)
		http.Error(w, fmt.Sprintf(format, args...), http.StatusBadRequest)
	}
	c := as.client(q.Get("client_id"))
	switch {
	case c == nil:
		fail("unknown client_id %q", q.Get("client_id"))
		return
	case !slices.Contains(c.redirectURIs, q.Get("redirect_uri")):
		fail("redirect_uri %q is not registered (have %q)", q.Get("redirect_uri"), c.redirectURIs)
		return
	case q.Get("response_type") != "code":
		fail("response_type %q", q.Get("response_type"))
		return
	case q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43:
		fail("PKCE: method %q challenge %q", q.Get("code_challenge_method"), q.Get("code_challenge"))
		return
	case q.Get("resource") == "":
		fail("no resource parameter")
		return
	}
	code := randomID()
	as.mu.Lock()
	as.codes[code] = &codeGrant{client: c.id, redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
		resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
	as.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	if as.o.tamperState {
		v.Set("state", q.Get("state")+"x")
	}
	switch as.o.iss {
	case "":
		v.Set("iss", as.issuer)
	case "wrong":
		v.Set("iss", "https://evil.example.com")
	case "slash":
		v.Set("iss", as.issuer+"/")
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// client finds a registered client, or fetches and checks the client ID
// metadata document a URL client ID names.
func (as *testAS) client(id string) *asClient {
	as.mu.Lock()
	c := as.clients[id]
	as.mu.Unlock()
	if c != nil || !as.o.cimd || !strings.HasPrefix(id, "https://") {
		return c
	}
	resp, err := as.o.cimdClient.Get(id)
	if err != nil {
		as.t.Errorf("AS: fetch client metadata document %s: %v", id, err)
		return nil
	}
	defer resp.Body.Close()
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.UnmarshalRead(resp.Body, &doc); err != nil || doc.ClientID != id || doc.ClientName == "" || len(doc.RedirectURIs) == 0 {
		as.t.Errorf("AS: client metadata document at %s is invalid (%v): %+v", id, err, doc)
		return nil
	}
	return &asClient{id: id, method: doc.AuthMethod, redirectURIs: doc.RedirectURIs}
}

func (as *testAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	oauthErr := func(status int, code, desc string) {
		writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
	}
	c, method, err := as.authenticate(r)
	grant := f.Get("grant_type")
	rec := tokenRequest{grant: grant, method: method, form: f, dpop: r.Header.Get("DPoP") != ""}
	if c != nil {
		rec.client = c.id
	}
	as.mu.Lock()
	as.tokenRequests = append(as.tokenRequests, rec)
	as.mu.Unlock()
	if err != nil {
		oauthErr(http.StatusUnauthorized, "invalid_client", err.Error())
		return
	}
	if f.Get("resource") == "" {
		as.t.Errorf("AS: token request (%s) without a resource parameter", grant)
	}
	jkt := ""
	if proof := r.Header.Get("DPoP"); as.o.dpop && proof != "" {
		if jkt, err = proofKeyThumbprint(proof); err != nil {
			oauthErr(http.StatusBadRequest, "invalid_dpop_proof", err.Error())
			return
		}
	}
	switch grant {
	case "authorization_code":
		as.mu.Lock()
		g := as.codes[f.Get("code")]
		delete(as.codes, f.Get("code"))
		as.mu.Unlock()
		switch {
		case g == nil:
			oauthErr(http.StatusBadRequest, "invalid_grant", "unknown or used code")
		case c == nil || g.client != c.id || g.redirect != f.Get("redirect_uri"):
			as.t.Errorf("AS: code redeemed by client %v with redirect %q, issued to %q with %q", rec.client, f.Get("redirect_uri"), g.client, g.redirect)
			oauthErr(http.StatusBadRequest, "invalid_grant", "client or redirect mismatch")
		case pkceS256(f.Get("code_verifier")) != g.challenge:
			as.t.Errorf("AS: code_verifier does not match the code_challenge")
			oauthErr(http.StatusBadRequest, "invalid_grant", "PKCE verification failed")
		case f.Get("resource") != g.resource:
			as.t.Errorf("AS: token request resource %q, authorization request %q", f.Get("resource"), g.resource)
			oauthErr(http.StatusBadRequest, "invalid_target", "resource mismatch")
		default:
			as.issue(w, g.client, "user-1", g.resource, g.scopes, jkt)
		}
	case "refresh_token":
		as.mu.Lock()
		g := as.refreshes[f.Get("refresh_token")]
		delete(as.refreshes, f.Get("refresh_token")) // rotation
		as.mu.Unlock()
		if g == nil || c == nil || g.client != c.id {
			oauthErr(http.StatusBadRequest, "invalid_grant", "unknown refresh token")
			return
		}
		as.issue(w, g.client, "user-1", f.Get("resource"), g.scopes, jkt)
	case "client_credentials":
		if c == nil || method == "none" {
			oauthErr(http.StatusUnauthorized, "invalid_client", "confidential client required")
			return
		}
		as.issue(w, c.id, c.id, f.Get("resource"), strings.Fields(f.Get("scope")), jkt)
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if f.Get("assertion") != as.o.assertion {
			oauthErr(http.StatusBadRequest, "invalid_grant", "assertion rejected")
			return
		}
		as.issue(w, "workload", "workload", f.Get("resource"), strings.Fields(f.Get("scope")), jkt)
	default:
		oauthErr(http.StatusBadRequest, "unsupported_grant_type", grant)
	}
}

// authenticate identifies the client of a token request and checks that
// it used the method it registered.
func (as *testAS) authenticate(r *http.Request) (*asClient, string, error) {
	f := r.PostForm
	var id, method string
	switch {
	case strings.HasPrefix(r.Header.Get("Authorization"), "Basic "):
		user, pass, _ := r.BasicAuth()
		id, _ = url.QueryUnescape(user)
		secret, _ := url.QueryUnescape(pass)
		method = "client_secret_basic"
		if c := as.client(id); c == nil || c.secret != secret {
			return c, method, fmt.Errorf("bad client secret for %q", id)
		}
	case f.Get("client_assertion") != "":
		id, method = f.Get("client_id"), "private_key_jwt"
		c := as.client(id)
		if c == nil || c.key == nil {
			return c, method, fmt.Errorf("no key for %q", id)
		}
		if err := as.checkAssertion(f.Get("client_assertion"), f.Get("client_assertion_type"), c); err != nil {
			return c, method, err
		}
	case f.Get("client_secret") != "":
		id, method = f.Get("client_id"), "client_secret_post"
		if c := as.client(id); c == nil || c.secret != f.Get("client_secret") {
			return c, method, fmt.Errorf("bad client secret for %q", id)
		}
	case f.Get("client_id") != "":
		id, method = f.Get("client_id"), "none"
	default:
		return nil, "unauthenticated", nil
	}
	c := as.client(id)
	if c == nil {
		return nil, method, fmt.Errorf("unknown client %q", id)
	}
	if c.method != method {
		return c, method, fmt.Errorf("client %q registered %s but used %s", id, c.method, method)
	}
	return c, method, nil
}

func (as *testAS) checkAssertion(assertion, typ string, c *asClient) error {
	if typ != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
		return fmt.Errorf("client_assertion_type %q", typ)
	}
	jws, err := jose.ParseSignedCompact(assertion, []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA})
	if err != nil {
		return err
	}
	payload, err := jws.Verify(c.key)
	if err != nil {
		return fmt.Errorf("client assertion signature: %w", err)
	}
	var claims struct {
		Iss string `json:"iss"`
		Sub string `json:"sub"`
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Jti string `json:"jti"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return err
	}
	if claims.Iss != c.id || claims.Sub != c.id || claims.Aud != as.issuer || claims.Jti == "" || time.Unix(claims.Exp, 0).Before(time.Now()) {
		return fmt.Errorf("client assertion claims %+v", claims)
	}
	return nil
}

// issue answers a token request with a signed JWT access token, and a
// refresh token when offline_access was granted.
// issue answers with a token; bound to the DPoP key with thumbprint jkt
// unless jkt is empty.
func (as *testAS) issue(w http.ResponseWriter, client, subject, resource string, requested []string, jkt string) {
	granted := requested
	if as.o.grant != nil {
		granted = as.o.grant(requested)
	}
	claims := map[string]any{
		"iss": as.issuer, "sub": subject, "aud": resource, "client_id": client,
		"scope": strings.Join(granted, " "), "iat": time.Now().Unix(), "jti": randomID(),
		"exp": time.Now().Add(time.Duration(as.o.expiresIn) * time.Second).Unix(),
	}
	tokenType := "Bearer"
	if jkt != "" {
		claims["cnf"], tokenType = map[string]string{"jkt": jkt}, "DPoP"
	}
	payload, _ := json.Marshal(claims)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: asKey(), KeyID: "as-key"}},
		(&jose.SignerOptions{}).WithType("at+jwt")) // RFC 9068, as the resource server requires
	if err != nil {
		as.t.Error(err)
		return
	}
	jws, _ := signer.Sign(payload)
	access, _ := jws.CompactSerialize()
	resp := map[string]any{"access_token": access, "token_type": tokenType, "expires_in": as.o.expiresIn, "scope": strings.Join(granted, " ")}
	if as.o.expiresAsText {
		resp["expires_in"] = fmt.Sprint(as.o.expiresIn)
	}
	if slices.Contains(granted, "offline_access") {
		rt := randomID()
		as.mu.Lock()
		as.refreshes[rt] = &codeGrant{client: client, scopes: requested}
		as.mu.Unlock()
		resp["refresh_token"] = rt
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, resp)
}

// Recorded traffic, copied under the lock.

func (as *testAS) auths() []url.Values {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.authRequests)
}

func (as *testAS) tokens() []tokenRequest {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.tokenRequests)
}

func (as *testAS) regs() []map[string]any {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.registrations)
}

func pkceS256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// proofKeyThumbprint verifies a DPoP proof's signature with its embedded
// key and returns the key's RFC 7638 thumbprint.
func proofKeyThumbprint(proof string) (string, error) {
	jws, err := jose.ParseSignedCompact(proof, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", err
	}
	key := jws.Signatures[0].Protected.JSONWebKey
	if key == nil {
		return "", errors.New("the proof has no jwk")
	}
	if _, err := jws.Verify(key); err != nil {
		return "", err
	}
	thumb, err := key.Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(thumb), err
}
