package authtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
)

// Options configures a Server; the zero value is usable.
type Options struct {
	// Subject is the user every authorization is for; empty means "user".
	Subject string
	// Scopes are published as scopes_supported.
	Scopes []string
	// TokenTTL is how long access tokens last; zero means an hour.
	TokenTTL time.Duration
	// Clients are pre-registered confidential clients, by client ID with
	// their secrets (client_secret_basic or client_secret_post), for the
	// client credentials grant: the token's subject is the client ID.
	Clients map[string]string
}

// Server is a running authorization server. Its issuer identifier is URL.
type Server struct {
	// URL is the issuer: http://127.0.0.1:<port>.
	URL string

	opts Options
	srv  *httptest.Server
	key  *ecdsa.PrivateKey

	mu        sync.Mutex
	clients   map[string][]string // client ID -> redirect URIs
	codes     map[string]grant    // outstanding authorization codes
	refreshes map[string]grant    // live refresh tokens
	auths     int                 // authorization requests answered with a code
}

// grant is what an authorization code or refresh token stands for.
type grant struct {
	client, redirect, challenge, resource string
	scopes                                []string
}

// NewServer starts a Server; opts may be nil. Close it when done.
func NewServer(opts *Options) *Server {
	s := &Server{clients: map[string][]string{}, codes: map[string]grant{}, refreshes: map[string]grant{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Subject == "" {
		s.opts.Subject = "user"
	}
	if s.opts.TokenTTL <= 0 {
		s.opts.TokenTTL = time.Hour
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(fmt.Sprintf("authtest: generating the signing key: %v", err))
	}
	s.key = key
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("GET /jwks", s.jwks)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Authorizations returns how many authorization requests the server has
// answered with a code: how often a client needed the user.
func (s *Server) Authorizations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.auths
}

// Token returns an access token for subject, for the resource audience,
// granting scopes, as the token endpoint would issue it.
func (s *Server) Token(subject, audience string, scopes ...string) string {
	tok, err := s.sign(subject, audience, "authtest-direct", scopes, "")
	if err != nil {
		panic(fmt.Sprintf("authtest: signing a token: %v", err))
	}
	return tok
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, auth.AuthorizationServerMetadata{
		Issuer:                            s.URL,
		AuthorizationEndpoint:             s.URL + "/authorize",
		TokenEndpoint:                     s.URL + "/token",
		RegistrationEndpoint:              s.URL + "/register",
		JWKSURI:                           s.URL + "/jwks",
		ScopesSupported:                   s.opts.Scopes,
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token", "client_credentials"},
		TokenEndpointAuthMethodsSupported: []string{"none", "client_secret_basic", "client_secret_post"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		AuthorizationResponseIssParameterSupported: true,
		DPoPSigningAlgValuesSupported:              []string{"ES256", "ES384", "RS256", "PS256", "EdDSA"},
	})
}

// register registers a public client (RFC 7591) with its redirect URIs.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.UnmarshalRead(r.Body, &req, json.RejectUnknownMembers(false)); err != nil || len(req.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the registration needs redirect_uris")
		return
	}
	id := randomString()
	s.mu.Lock()
	s.clients[id] = req.RedirectURIs
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

// authorize answers an authorization request at once with a code for the
// configured user, by redirecting to the client's redirect URI.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	registered, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	switch {
	case !known:
		http.Error(w, "unknown client_id; register the client first", http.StatusBadRequest)
		return
	case !slices.ContainsFunc(registered, func(u string) bool { return sameRedirect(u, redirect) }):
		http.Error(w, "redirect_uri is not one the client registered", http.StatusBadRequest)
		return
	}
	back, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "redirect_uri is not a URL", http.StatusBadRequest)
		return
	}
	answer := back.Query()
	answer.Set("state", q.Get("state"))
	answer.Set("iss", s.URL)
	switch {
	case q.Get("response_type") != "code":
		answer.Set("error", "unsupported_response_type")
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		answer.Set("error", "invalid_request")
		answer.Set("error_description", "PKCE with S256 is required")
	default:
		code := randomString()
		s.mu.Lock()
		s.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
		s.auths++
		s.mu.Unlock()
		answer.Set("code", code)
	}
	back.RawQuery = answer.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token redeems an authorization code (checking PKCE) or a refresh token,
// which it rotates.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	f := r.PostForm
	jkt, err := dpopThumbprint(r, s.URL+"/token")
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_dpop_proof", err.Error())
		return
	}
	if f.Get("grant_type") == "client_credentials" {
		s.clientCredentials(w, r, jkt)
		return
	}
	s.mu.Lock()
	var g grant
	var ok bool
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok = s.codes[f.Get("code")]
		delete(s.codes, f.Get("code"))
		ok = ok && g.client == f.Get("client_id") && g.redirect == f.Get("redirect_uri") && g.challenge == s256(f.Get("code_verifier"))
	case "refresh_token":
		g, ok = s.refreshes[f.Get("refresh_token")]
		delete(s.refreshes, f.Get("refresh_token"))
		ok = ok && g.client == f.Get("client_id")
	default:
		s.mu.Unlock()
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "this server takes authorization_code, refresh_token and client_credentials")
		return
	}
	if !ok {
		s.mu.Unlock()
		oauthError(w, http.StatusBadRequest, "invalid_grant", "the code or refresh token is unknown, used, or was issued to another client, redirect URI or code verifier")
		return
	}
	if res := f.Get("resource"); res != "" {
		g.resource = res
	}
	refresh := randomString()
	s.refreshes[refresh] = g
	s.mu.Unlock()
	access, err := s.sign(s.opts.Subject, g.resource, g.client, g.scopes, jkt)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	s.issue(w, access, refresh, g.scopes, jkt != "")
}

// clientCredentials issues a token to an authenticated pre-registered
// client, for itself.
func (s *Server) clientCredentials(w http.ResponseWriter, r *http.Request, jkt string) {
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if want, ok := s.opts.Clients[id]; !ok || secret == "" || secret != want {
		w.Header().Set("WWW-Authenticate", `Basic realm="authtest"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong secret")
		return
	}
	scopes := strings.Fields(r.PostForm.Get("scope"))
	access, err := s.sign(id, r.PostForm.Get("resource"), id, scopes, jkt)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	s.issue(w, access, "", scopes, jkt != "")
}

// issue answers a token request with an access token (and a refresh
// token, when there is one), of type DPoP when it is bound to a key.
func (s *Server) issue(w http.ResponseWriter, access, refresh string, scopes []string, bound bool) {
	tokenType := "Bearer"
	if bound {
		tokenType = "DPoP"
	}
	body := map[string]any{"access_token": access, "token_type": tokenType,
		"expires_in": int(s.opts.TokenTTL.Seconds()), "scope": strings.Join(scopes, " ")}
	if refresh != "" {
		body["refresh_token"] = refresh
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &s.key.PublicKey, KeyID: "authtest", Algorithm: "ES256", Use: "sig"}}})
}

// sign issues a JWT access token (RFC 9068).
func (s *Server) sign(subject, audience, client string, scopes []string, jkt string) (string, error) {
	now := time.Now()
	c := map[string]any{
		"iss": s.URL, "sub": subject, "aud": audience, "client_id": client, "jti": randomString(),
		"iat": now.Unix(), "exp": now.Add(s.opts.TokenTTL).Unix(), "scope": strings.Join(scopes, " "),
	}
	if jkt != "" {
		c["cnf"] = map[string]string{"jkt": jkt}
	}
	claims, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: s.key, KeyID: "authtest"}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(claims)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// sameRedirect compares redirect URIs exactly, except that a loopback one
// may use any port (RFC 8252 section 7.3).
func sameRedirect(registered, got string) bool {
	if registered == got {
		return true
	}
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(got)
	if err1 != nil || err2 != nil || a.Scheme != "http" || b.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(a.Hostname())
	return ip != nil && ip.IsLoopback() && a.Hostname() == b.Hostname() && a.Path == b.Path && a.RawQuery == b.RawQuery
}

// s256 is the PKCE S256 challenge of verifier.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// randomString returns 128 random bits, URL-safe.
func randomString() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}
