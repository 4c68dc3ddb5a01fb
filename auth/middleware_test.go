package auth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
)

// protected is an MCP endpoint behind the middleware, on a real server.
type protected struct {
	srv      *httptest.Server
	rs       *auth.ResourceServer
	resource string
}

// seenRequest is what the protected handler reports about a request.
type seenRequest struct {
	Principal string   `json:"principal"`
	Subject   string   `json:"subject"`
	ClientID  string   `json:"clientId"`
	Scopes    []string `json:"scopes"`
}

// newProtected serves cfg (Resource and Verifier filled in when empty)
// around a handler that authorizes by the Mcp-Method and Mcp-Name headers
// and echoes the token info.
func newProtected(t *testing.T, cfg auth.Config) *protected {
	t.Helper()
	p := &protected{srv: httptest.NewServer(nil)}
	t.Cleanup(p.srv.Close)
	p.resource = p.srv.URL + "/mcp"
	if cfg.Resource == "" {
		cfg.Resource = p.resource
	}
	rs, err := auth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.rs = rs
	p.srv.Config.Handler = rs.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := auth.Authorize(r.Context(), r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name")); err != nil {
			if !auth.WriteError(w, err) {
				t.Errorf("WriteError did not handle %v", err)
			}
			return
		}
		info := auth.TokenInfoFrom(r.Context())
		writeJSON(w, seenRequest{
			Principal: auth.PrincipalFrom(r.Context()),
			Subject:   info.Subject,
			ClientID:  info.ClientID,
			Scopes:    info.Scopes,
		})
	}))
	return p
}

// call POSTs to the endpoint with the given Authorization header value
// (none when empty) and extra headers as name/value pairs.
func (p *protected) call(t *testing.T, authorization string, headers ...string) *http.Response {
	t.Helper()
	return p.callURL(t, p.resource, authorization, headers...)
}

func (p *protected) callURL(t *testing.T, u, authorization string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func jwtConfig(t *testing.T, is *testIssuer, p *protected, mutate func(*auth.JWTOptions)) auth.Verifier {
	t.Helper()
	opts := auth.JWTOptions{Issuer: is.issuer, Audience: p.resource}
	if mutate != nil {
		mutate(&opts)
	}
	v, err := auth.NewJWTVerifier(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// newJWTProtected is an endpoint whose tokens come from is. The verifier is
// built after the server exists, since its audience is the server's URL.
func newJWTProtected(t *testing.T, is *testIssuer, cfg auth.Config, mutate func(*auth.JWTOptions)) *protected {
	t.Helper()
	var v auth.Verifier
	cfg.AuthorizationServers = []string{is.issuer}
	cfg.Verifier = auth.VerifierFunc(func(ctx context.Context, token string) (*auth.TokenInfo, error) {
		return v.Verify(ctx, token)
	})
	p := newProtected(t, cfg)
	v = jwtConfig(t, is, p, mutate)
	return p
}

func challenge(t *testing.T, resp *http.Response) auth.Challenge {
	t.Helper()
	c, ok := auth.BearerChallenge(resp.Header)
	if !ok {
		t.Fatalf("HTTP %d without a Bearer challenge; WWW-Authenticate = %q", resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
	}
	return c
}

func decodeSeen(t *testing.T, resp *http.Response) seenRequest {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("HTTP %d, want 200: %s (WWW-Authenticate %q)", resp.StatusCode, b, resp.Header.Get("WWW-Authenticate"))
	}
	var s seenRequest
	if err := json.UnmarshalRead(resp.Body, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// wantInvalidToken checks a 401 with error="invalid_token" whose description
// contains want.
func wantInvalidToken(t *testing.T, resp *http.Response, want string) {
	t.Helper()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("HTTP %d, want 401", resp.StatusCode)
	}
	c := challenge(t, resp)
	if c.Params["error"] != "invalid_token" {
		t.Errorf("error = %q, want invalid_token", c.Params["error"])
	}
	if !strings.Contains(c.Params["error_description"], want) {
		t.Errorf("error_description = %q, want it to mention %q", c.Params["error_description"], want)
	}
	if c.Params["resource_metadata"] == "" {
		t.Error("challenge has no resource_metadata")
	}
}

func TestMiddleware_ValidTokenReachesHandlerWithPrincipal(t *testing.T) {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{}, nil)
	tok := is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, p.resource, map[string]any{"scope": "mcp:read mcp:write"})
	got := decodeSeen(t, p.call(t, "Bearer "+tok))
	want := seenRequest{Principal: is.issuer + "#sub:alice", Subject: "alice", ClientID: "client-1", Scopes: []string{"mcp:read", "mcp:write"}}
	if got.Principal != want.Principal || got.Subject != want.Subject || got.ClientID != want.ClientID || !slices.Equal(got.Scopes, want.Scopes) {
		t.Errorf("handler saw %+v, want %+v", got, want)
	}
	// The scheme is case-insensitive (RFC 9110).
	decodeSeen(t, p.call(t, "bearer "+tok))
}

func TestMiddleware_MissingTokenGets401WithResourceMetadata(t *testing.T) {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{Scopes: []string{"mcp:read"}}, nil)
	resp := p.call(t, "")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("HTTP %d, want 401", resp.StatusCode)
	}
	c := challenge(t, resp)
	if got, want := c.Params["resource_metadata"], p.srv.URL+"/.well-known/oauth-protected-resource/mcp"; got != want {
		t.Errorf("resource_metadata = %q, want %q", got, want)
	}
	if c.Params["scope"] != "mcp:read" {
		t.Errorf("scope = %q, want the scopes every request needs", c.Params["scope"])
	}
	if _, ok := c.Params["error"]; ok {
		t.Errorf("a request without a token got error=%q; RFC 6750 says to send no error code", c.Params["error"])
	}
}

// A browser-based client must be able to read a refusal of its
// cross-origin request, challenge included, to start authorization.
func TestMiddleware_RefusalsAreReadableCrossOrigin(t *testing.T) {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{}, nil)
	resp := p.call(t, "", "Origin", "http://localhost:6274")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("HTTP %d, want 401", resp.StatusCode)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
		t.Errorf("a cross-origin refusal has CORS headers %v, want any origin allowed to read WWW-Authenticate", resp.Header)
	}
	if same := p.call(t, ""); same.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a same-origin refusal got Access-Control-Allow-Origin %q", same.Header.Get("Access-Control-Allow-Origin"))
	}
}

func TestMiddleware_TokenInQueryIsIgnored(t *testing.T) {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{}, nil)
	tok := is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, p.resource, nil)
	resp := p.callURL(t, p.resource+"?access_token="+tok, "")
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("token in the query string: HTTP %d, want 401", resp.StatusCode)
	}
	if c := challenge(t, resp); c.Params["error"] != "" {
		t.Errorf("error = %q: the query token was looked at", c.Params["error"])
	}
}

func TestMiddleware_RejectsTokens(t *testing.T) {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{}, nil)
	rsaSK := signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}
	now := time.Now()
	for _, tc := range []struct {
		name   string
		claims map[string]any
		want   string
	}{
		{"expired", map[string]any{"exp": now.Add(-time.Minute).Unix()}, "expired"},
		{"no expiry", map[string]any{"exp": nil}, "no expiry"},
		{"not yet valid", map[string]any{"nbf": now.Add(5 * time.Minute).Unix()}, "not valid before"},
		{"issued in the future", map[string]any{"iat": now.Add(5 * time.Minute).Unix()}, "future"},
		{"wrong audience", map[string]any{"aud": "https://other.example.com/mcp"}, "not meant for"},
		{"audience list without us", map[string]any{"aud": []string{"https://a.example", "https://b.example"}}, "not meant for"},
		{"wrong issuer", map[string]any{"iss": "https://evil.example.com"}, "issued by"},
		{"no subject or client", map[string]any{"sub": nil, "client_id": nil}, "neither a subject nor a client"},
		{"aud of the wrong type", map[string]any{"aud": 42}, "expected types"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantInvalidToken(t, p.call(t, "Bearer "+is.token(t, rsaSK, p.resource, tc.claims)), tc.want)
		})
	}
	t.Run("within leeway", func(t *testing.T) {
		tok := is.token(t, rsaSK, p.resource, map[string]any{
			"exp": now.Add(-10 * time.Second).Unix(),
			"nbf": now.Add(10 * time.Second).Unix(),
		})
		decodeSeen(t, p.call(t, "Bearer "+tok))
	})
	t.Run("audience list with us", func(t *testing.T) {
		decodeSeen(t, p.call(t, "Bearer "+is.token(t, rsaSK, p.resource, map[string]any{"aud": []string{"https://a.example", p.resource}})))
	})
	t.Run("tampered payload", func(t *testing.T) {
		tok := is.token(t, rsaSK, p.resource, nil)
		parts := strings.Split(tok, ".")
		payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
		payload = bytes.Replace(payload, []byte(`"alice"`), []byte(`"admin"`), 1)
		parts[1] = base64.RawURLEncoding.EncodeToString(payload)
		wantInvalidToken(t, p.call(t, "Bearer "+strings.Join(parts, ".")), "signature does not verify")
	})
	for _, h := range []string{"Basic dXNlcjpwYXNz", "Bearer", "Bearer a b", "Token abc"} {
		t.Run("header "+h, func(t *testing.T) {
			wantInvalidToken(t, p.call(t, h), "Bearer <token>")
		})
	}
	t.Run("two Authorization headers", func(t *testing.T) {
		tok := is.token(t, rsaSK, p.resource, nil)
		req, _ := http.NewRequest(http.MethodPost, p.resource, nil)
		req.Header.Add("Authorization", "Bearer "+tok)
		req.Header.Add("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		wantInvalidToken(t, resp, "2 Authorization headers")
	})
}

func TestMiddleware_DisallowedAlgorithms(t *testing.T) {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{}, nil)
	claims := map[string]any{
		"iss": is.issuer, "sub": "alice", "aud": p.resource,
		"exp": time.Now().Add(time.Hour).Unix(), "scope": "mcp:read",
	}
	payload, _ := json.Marshal(claims)
	b64 := base64.RawURLEncoding.EncodeToString

	t.Run("alg none", func(t *testing.T) {
		tok := b64([]byte(`{"alg":"none","kid":"rsa-1"}`)) + "." + b64(payload) + "."
		wantInvalidToken(t, p.call(t, "Bearer "+tok), "allowed algorithm")
	})
	t.Run("HS256 keyed with the public key", func(t *testing.T) {
		// The classic confusion attack: use the issuer's public key, which
		// anyone can fetch, as an HMAC secret.
		der, err := x509.MarshalPKIXPublicKey(rsaKey().Public())
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range [][]byte{der, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})} {
			input := b64([]byte(`{"alg":"HS256","kid":"rsa-1"}`)) + "." + b64(payload)
			mac := hmac.New(sha256.New, secret)
			mac.Write([]byte(input))
			wantInvalidToken(t, p.call(t, "Bearer "+input+"."+b64(mac.Sum(nil))), "allowed algorithm")
		}
	})
	t.Run("RS512 not configured", func(t *testing.T) {
		tok := is.token(t, signingKey{kid: "rsa-1", alg: jose.RS512, priv: rsaKey()}, p.resource, nil)
		wantInvalidToken(t, p.call(t, "Bearer "+tok), "allowed algorithm")
	})
	t.Run("ES256 header on an RSA key", func(t *testing.T) {
		ec := newECKey(t, "rsa-1") // same kid as the published RSA key
		wantInvalidToken(t, p.call(t, "Bearer "+is.token(t, ec, p.resource, nil)), "does not fit algorithm ES256")
	})
	t.Run("HMAC cannot be configured", func(t *testing.T) {
		for _, alg := range []string{"HS256", "none", "RSA-OAEP"} {
			_, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: is.issuer, Audience: p.resource, Algorithms: []string{alg}})
			if err == nil {
				t.Errorf("Algorithms %q accepted", alg)
			}
		}
	})
}

func TestMiddleware_OtherKeyTypesAndConfiguredJWKSURL(t *testing.T) {
	is := newTestIssuer(t)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys := []signingKey{newECKey(t, "ec-1"), {kid: "ec-384", alg: jose.ES384, priv: p384}, {kid: "ed-1", alg: jose.EdDSA, priv: ed}}
	for _, k := range keys {
		is.publish(k)
	}
	p := newJWTProtected(t, is, auth.Config{}, func(o *auth.JWTOptions) {
		o.JWKSURL = is.issuer + "/jwks"
		o.Algorithms = []string{"ES256", "ES384", "EdDSA"}
	})
	for _, k := range keys {
		if got := decodeSeen(t, p.call(t, "Bearer "+is.token(t, k, p.resource, nil))); got.Subject != "alice" {
			t.Errorf("%s: subject = %q", k.alg, got.Subject)
		}
	}
	// RS256 is not in this verifier's list.
	wantInvalidToken(t, p.call(t, "Bearer "+is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, p.resource, nil)), "allowed algorithm")
}

func TestMiddleware_UnknownKeyIDIsRejected(t *testing.T) {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{}, nil)
	decodeSeen(t, p.call(t, "Bearer "+is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, p.resource, nil)))
	stranger := newECKey(t, "not-published")
	wantInvalidToken(t, p.call(t, "Bearer "+is.token(t, stranger, p.resource, nil)), "no published key")
}

func TestMiddleware_InsufficientScope(t *testing.T) {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{
		Scopes:        []string{"mcp:read"},
		MethodScopes:  map[string][]string{"resources/read": {"files:read"}},
		ToolScopes:    map[string][]string{"deploy": {"deploy:run", "mcp:write"}},
		ImpliedScopes: map[string][]string{"files:admin": {"files:read"}},
	}, nil)
	rsaSK := signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}
	tok := func(scope string) string {
		return "Bearer " + is.token(t, rsaSK, p.resource, map[string]any{"scope": scope})
	}
	wantStepUp := func(t *testing.T, resp *http.Response, scope string) {
		t.Helper()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("HTTP %d, want 403", resp.StatusCode)
		}
		c := challenge(t, resp)
		if c.Params["error"] != "insufficient_scope" || c.Params["scope"] != scope {
			t.Errorf("challenge error=%q scope=%q, want insufficient_scope and %q", c.Params["error"], c.Params["scope"], scope)
		}
		if c.Params["resource_metadata"] != p.rs.MetadataURL() {
			t.Errorf("resource_metadata = %q, want %q", c.Params["resource_metadata"], p.rs.MetadataURL())
		}
	}
	t.Run("every request", func(t *testing.T) {
		wantStepUp(t, p.call(t, tok("other")), "mcp:read")
	})
	t.Run("tool", func(t *testing.T) {
		wantStepUp(t, p.call(t, tok("mcp:read deploy:run"), "Mcp-Method", "tools/call", "Mcp-Name", "deploy"), "mcp:read deploy:run mcp:write")
		decodeSeen(t, p.call(t, tok("mcp:read deploy:run mcp:write"), "Mcp-Method", "tools/call", "Mcp-Name", "deploy"))
		decodeSeen(t, p.call(t, tok("mcp:read"), "Mcp-Method", "tools/call", "Mcp-Name", "echo"))
	})
	t.Run("method and implied scope", func(t *testing.T) {
		wantStepUp(t, p.call(t, tok("mcp:read"), "Mcp-Method", "resources/read"), "mcp:read files:read")
		decodeSeen(t, p.call(t, tok("mcp:read files:admin"), "Mcp-Method", "resources/read"))
	})
}

func TestRequireScopes(t *testing.T) {
	if err := auth.RequireScopes(context.Background(), "a"); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("without a token: %v, want ErrUnauthenticated", err)
	}
	ctx := auth.ContextWithTokenInfo(context.Background(), &auth.TokenInfo{Issuer: "https://as", Subject: "bob", Scopes: []string{"a", "b"}})
	if err := auth.RequireScopes(ctx, "a", "b"); err != nil {
		t.Errorf("granted scopes: %v", err)
	}
	err := auth.RequireScopes(ctx, "a", "c")
	var se *auth.InsufficientScopeError
	if !errors.As(err, &se) || !slices.Equal(se.Required, []string{"a", "c"}) || !slices.Equal(se.Missing, []string{"c"}) {
		t.Fatalf("RequireScopes(a, c) = %v, want InsufficientScopeError{Required: [a c], Missing: [c]}", err)
	}
	rec := httptest.NewRecorder()
	if !auth.WriteError(rec, errors.Join(errors.New("tool failed"), err)) {
		t.Fatal("WriteError did not recognise a wrapped InsufficientScopeError")
	}
	if rec.Code != http.StatusForbidden {
		t.Errorf("WriteError wrote %d, want 403", rec.Code)
	}
	c, _ := auth.BearerChallenge(rec.Header())
	if c.Params["scope"] != "a c" || c.Params["error"] != "insufficient_scope" {
		t.Errorf("challenge = %+v", c.Params)
	}
	if auth.WriteError(httptest.NewRecorder(), errors.New("other")) {
		t.Error("WriteError claimed an unrelated error")
	}
	rec = httptest.NewRecorder()
	if err := auth.Authorize(context.Background(), "tools/call", "x"); err != nil {
		t.Errorf("Authorize without a ResourceServer = %v, want nil: no policy applies", err)
	}
	if !auth.WriteError(rec, auth.RequireScopes(context.Background(), "x")) || rec.Code != http.StatusUnauthorized {
		t.Errorf("unauthenticated: WriteError wrote %d, want 401", rec.Code)
	}
}

func TestPrincipal_IssuersNeverCollide(t *testing.T) {
	a := &auth.TokenInfo{Issuer: "https://a.example", Subject: "alice"}
	b := &auth.TokenInfo{Issuer: "https://b.example", Subject: "alice"}
	c := &auth.TokenInfo{Issuer: "https://a.example", ClientID: "alice"}
	if a.Principal() == b.Principal() || a.Principal() == c.Principal() {
		t.Errorf("principals collide: %q %q %q", a.Principal(), b.Principal(), c.Principal())
	}
	if auth.PrincipalFrom(context.Background()) != "" {
		t.Error("PrincipalFrom without a token is not empty")
	}
}

func TestMiddleware_VerifierFailureIs503AndNeverLogsTheToken(t *testing.T) {
	is := newTestIssuer(t)
	is.down.Store(true)
	var logs bytes.Buffer
	var v auth.Verifier
	p := newProtected(t, auth.Config{
		AuthorizationServers: []string{is.issuer},
		Verifier:             auth.VerifierFunc(func(ctx context.Context, tok string) (*auth.TokenInfo, error) { return v.Verify(ctx, tok) }),
		Logger:               slog.New(slog.NewTextHandler(&logs, nil)),
	})
	v = jwtConfig(t, is, p, nil)
	tok := is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, p.resource, nil)
	resp := p.call(t, "Bearer "+tok)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("JWKS down: HTTP %d, want 503", resp.StatusCode)
	}
	if !strings.Contains(logs.String(), "HTTP 500") {
		t.Errorf("log does not say why verification failed: %q", logs.String())
	}
	if strings.Contains(logs.String(), tok) || strings.Contains(logs.String(), strings.Split(tok, ".")[2]) {
		t.Error("the token was logged")
	}
}

func TestMiddleware_ChecksWhatCustomVerifiersReturn(t *testing.T) {
	var info auth.TokenInfo
	p := newProtected(t, auth.Config{
		AuthorizationServers: []string{"https://as.example.com"},
		Verifier: auth.VerifierFunc(func(ctx context.Context, tok string) (*auth.TokenInfo, error) {
			i := info
			return &i, nil
		}),
	})
	info = auth.TokenInfo{Issuer: "https://as.example.com", Subject: "s", Audience: []string{"https://elsewhere"}, Expiry: time.Now().Add(time.Hour)}
	wantInvalidToken(t, p.call(t, "Bearer opaque"), "not meant for")
	info.Audience = []string{p.resource}
	info.Expiry = time.Now().Add(-time.Hour)
	wantInvalidToken(t, p.call(t, "Bearer opaque"), "expired")
	info.Expiry = time.Time{}
	if got := decodeSeen(t, p.call(t, "Bearer opaque")); got.Principal != "https://as.example.com#sub:s" {
		t.Errorf("principal = %q", got.Principal)
	}
}

func TestMiddleware_PreflightPassesThrough(t *testing.T) {
	reached := false
	rs, err := auth.New(auth.Config{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://as.example.com"},
		Verifier:             auth.VerifierFunc(func(context.Context, string) (*auth.TokenInfo, error) { return nil, auth.ErrInvalidToken }),
	})
	if err != nil {
		t.Fatal(err)
	}
	h := rs.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodOptions, "/mcp", nil))
	if !reached {
		t.Error("OPTIONS preflight was refused")
	}
}

func TestNew_RejectsBadConfig(t *testing.T) {
	v := auth.VerifierFunc(func(context.Context, string) (*auth.TokenInfo, error) { return nil, nil })
	for _, cfg := range []auth.Config{
		{AuthorizationServers: []string{"https://as"}, Verifier: v},
		{Resource: "mcp.example.com/mcp", AuthorizationServers: []string{"https://as"}, Verifier: v},
		{Resource: "https://mcp.example.com/mcp#x", AuthorizationServers: []string{"https://as"}, Verifier: v},
		{Resource: "https://mcp.example.com/mcp", Verifier: v},
		{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"http://as.example.com"}, Verifier: v},
		{Resource: "https://mcp.example.com/mcp", AuthorizationServers: []string{"https://as"}},
	} {
		if _, err := auth.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}
