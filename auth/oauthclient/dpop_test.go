package oauthclient_test

import (
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/oauthclient"
)

// dpopProofClaims are the claims of a DPoP proof (RFC 9449 section 4.2).
type dpopProofClaims struct {
	JTI   string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	ATH   string `json:"ath"`
	Nonce string `json:"nonce"`
}

// checkDPoPProof verifies a proof as RFC 9449 section 4.3 says a server
// must: one well-formed JWT of type dpop+jwt, signed with the public key in
// its jwk header (no private part), for method and target, recent. It
// returns the claims and the key's thumbprint.
func checkDPoPProof(h http.Header, method, target string) (dpopProofClaims, string, error) {
	var c dpopProofClaims
	values := h.Values("DPoP")
	if len(values) != 1 {
		return c, "", fmt.Errorf("want one DPoP header, got %d", len(values))
	}
	jws, err := jose.ParseSignedCompact(values[0], []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return c, "", fmt.Errorf("the proof is not a JWS: %w", err)
	}
	hdr := jws.Signatures[0].Protected
	if typ, _ := hdr.ExtraHeaders["typ"].(string); typ != "dpop+jwt" {
		return c, "", fmt.Errorf("typ is %q, want dpop+jwt", typ)
	}
	if hdr.JSONWebKey == nil || !hdr.JSONWebKey.IsPublic() {
		return c, "", fmt.Errorf("the jwk header is missing or holds a private key")
	}
	payload, err := jws.Verify(hdr.JSONWebKey)
	if err != nil {
		return c, "", fmt.Errorf("the proof's signature does not verify with its jwk: %w", err)
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return c, "", err
	}
	switch {
	case c.JTI == "":
		return c, "", fmt.Errorf("no jti")
	case c.HTM != method:
		return c, "", fmt.Errorf("htm is %q, want %q", c.HTM, method)
	case c.HTU != target:
		return c, "", fmt.Errorf("htu is %q, want %q", c.HTU, target)
	case time.Since(time.Unix(c.IAT, 0)).Abs() > time.Minute:
		return c, "", fmt.Errorf("iat %d is not recent", c.IAT)
	}
	thumb, err := hdr.JSONWebKey.Thumbprint(crypto.SHA256)
	return c, base64.RawURLEncoding.EncodeToString(thumb), err
}

// dpopServers are an authorization server issuing DPoP-bound tokens and an
// MCP endpoint taking them, both demanding a nonce first, that record what
// they saw.
type dpopServers struct {
	t      *testing.T
	as, rs *httptest.Server

	mu          sync.Mutex
	problems    []string
	jtis        map[string]bool
	keys        map[string]bool // thumbprints of the proofs' keys
	tokenCalls  int
	mcpCalls    int
	mcpAccepted int
}

func (d *dpopServers) problem(format string, args ...any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.problems = append(d.problems, fmt.Sprintf(format, args...))
}

// seen records a proof's jti and key, noting a replayed jti.
func (d *dpopServers) seen(c dpopProofClaims, thumb string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.jtis[c.JTI] {
		d.problems = append(d.problems, "a proof's jti was used before: "+c.JTI)
	}
	d.jtis[c.JTI] = true
	d.keys[thumb] = true
}

const (
	asNonce = "as-nonce-1"
	rsNonce = "rs-nonce-1"
)

func newDPoPServers(t *testing.T) *dpopServers {
	d := &dpopServers{t: t, jtis: map[string]bool{}, keys: map[string]bool{}}
	asMux := http.NewServeMux()
	d.as = httptest.NewServer(asMux)
	t.Cleanup(d.as.Close)
	asMux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": d.as.URL, "token_endpoint": d.as.URL + "/token",
			"grant_types_supported":                 []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post"},
			"dpop_signing_alg_values_supported":     []string{"ES256"},
		})
	})
	asMux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.tokenCalls++
		d.mu.Unlock()
		c, thumb, err := checkDPoPProof(r.Header, http.MethodPost, d.as.URL+"/token")
		if err != nil {
			d.problem("token request: %v", err)
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof", "error_description": err.Error()})
			return
		}
		d.seen(c, thumb)
		if c.ATH != "" {
			d.problem("token request: a proof with ath, but no token is presented")
		}
		if c.Nonce != asNonce {
			w.Header().Set("DPoP-Nonce", asNonce)
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "use_dpop_nonce"})
			return
		}
		token := "token-bound-to-" + thumb
		writeJSON(w, http.StatusOK, map[string]any{"access_token": token, "token_type": "DPoP", "expires_in": 3600})
	})

	rsMux := http.NewServeMux()
	d.rs = httptest.NewServer(rsMux)
	t.Cleanup(d.rs.Close)
	prm := d.rs.URL + "/.well-known/oauth-protected-resource/mcp"
	rsMux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": d.rs.URL + "/mcp", "authorization_servers": []string{d.as.URL}})
	})
	rsMux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.mcpCalls++
		d.mu.Unlock()
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if scheme == "" {
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="`+prm+`"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if scheme != "DPoP" {
			d.problem("MCP request: Authorization scheme %q, want DPoP", scheme)
		}
		c, thumb, err := checkDPoPProof(r.Header, http.MethodPost, d.rs.URL+"/mcp")
		if err != nil {
			d.problem("MCP request: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		d.seen(c, thumb)
		sum := sha256.Sum256([]byte(token))
		if c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			d.problem("MCP request: ath does not match the token")
		}
		if token != "token-bound-to-"+thumb {
			d.problem("MCP request: the proof's key is not the one the token is bound to")
		}
		if c.Nonce != rsNonce {
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", resource_metadata="`+prm+`"`)
			w.Header().Set("DPoP-Nonce", rsNonce)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		d.mu.Lock()
		d.mcpAccepted++
		d.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]string{"result": "ok"})
	})
	return d
}

// A client talking to an authorization server that lists ES256 in
// dpop_signing_alg_values_supported gets a DPoP-bound token with a proof,
// answering the server's use_dpop_nonce; presents it with the DPoP scheme
// and a fresh proof carrying ath on every request, answering the MCP
// server's use_dpop_nonce the same way; and signs every proof with one key.
func TestDPoPBoundTokenWithServerNonces(t *testing.T) {
	d := newDPoPServers(t)
	c := newClient(t, oauthclient.Config{
		Grant:   oauthclient.GrantClientCredentials,
		Clients: []oauthclient.ClientInfo{{ClientID: "dpop-client", ClientSecret: "s3cret", AuthMethod: oauthclient.AuthClientSecretPost}},
	})
	for i := range 3 {
		resp, err := post(t, c, d.rs.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: HTTP %d, want 200", i, resp.StatusCode)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range d.problems {
		t.Error(p)
	}
	// Token: one refused for its missing nonce, one granted. MCP: the
	// unauthenticated first, one refused for its missing nonce, then three.
	if d.tokenCalls != 2 || d.mcpCalls != 5 || d.mcpAccepted != 3 {
		t.Errorf("token requests %d, MCP requests %d (%d accepted); want 2 and 5 (3 accepted)", d.tokenCalls, d.mcpCalls, d.mcpAccepted)
	}
	if len(d.keys) != 1 {
		t.Errorf("proofs were signed with %d keys; want one", len(d.keys))
	}
}

// With DPoP disabled, the client asks the same authorization server for a
// plain token: no proof is sent, so this one refuses.
func TestDPoPDisabledSendsNoProof(t *testing.T) {
	d := newDPoPServers(t)
	c := newClient(t, oauthclient.Config{
		Grant:       oauthclient.GrantClientCredentials,
		Clients:     []oauthclient.ClientInfo{{ClientID: "dpop-client", ClientSecret: "s3cret", AuthMethod: oauthclient.AuthClientSecretPost}},
		DisableDPoP: true,
	})
	_, err := post(t, c, d.rs.URL+"/mcp", `{}`)
	if err == nil || !strings.Contains(err.Error(), "invalid_dpop_proof") {
		t.Fatalf("err = %v; want the authorization server's refusal of a request without a proof", err)
	}
}

// The client's DPoP and the resource server's agree: an auth.ResourceServer
// with DPoP on (issuing nonces or not) takes the client's DPoP-bound token
// and a fresh proof on every request, and a resource server requiring DPoP
// refuses a client that has it disabled.
func TestDPoPWithTheResourceServer(t *testing.T) {
	const id = "dpop-client"
	as := newTestAS(t, asOptions{dpop: true, noDCR: true, authMethods: []string{"client_secret_post"},
		preRegistered: []*asClient{{id: id, secret: "s3cret", method: "client_secret_post"}}})
	ci := oauthclient.ClientInfo{ClientID: id, ClientSecret: "s3cret"}
	for _, cfg := range []auth.DPoPConfig{{Required: true}, {NonceWindow: time.Hour}} {
		ms := newMCPServer(t, as, auth.Config{DPoP: &cfg})
		c := newClient(t, oauthclient.Config{Grant: oauthclient.GrantClientCredentials, Clients: []oauthclient.ClientInfo{ci}})
		for range 3 {
			if r := mustReply(t, c, ms.url); r.Principal != as.issuer+"#sub:"+id {
				t.Fatalf("%+v: principal %q, want %s's", cfg, r.Principal, id)
			}
		}
	}
	ms := newMCPServer(t, as, auth.Config{DPoP: &auth.DPoPConfig{Required: true}})

	bearerOnly := newClient(t, oauthclient.Config{Grant: oauthclient.GrantClientCredentials, Clients: []oauthclient.ClientInfo{ci}, DisableDPoP: true})
	resp, err := post(t, bearerOnly, ms.url, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a Bearer token where DPoP is required: HTTP %d, want 401", resp.StatusCode)
	}
}

// An authorization server that issues DPoP-bound tokens does not make the
// client ask for one for a resource server that takes only Bearer tokens
// (its metadata lists no DPoP algorithms and its challenge is Bearer): the
// bound token would be refused there.
func TestDPoPOnlyWhereTheResourceServerTakesIt(t *testing.T) {
	const id = "dpop-client"
	as := newTestAS(t, asOptions{dpop: true, noDCR: true, authMethods: []string{"client_secret_post"},
		preRegistered: []*asClient{{id: id, secret: "s3cret", method: "client_secret_post"}}})
	ci := oauthclient.ClientInfo{ClientID: id, ClientSecret: "s3cret"}
	bearerOnly := newMCPServer(t, as, auth.Config{})
	c := newClient(t, oauthclient.Config{Grant: oauthclient.GrantClientCredentials, Clients: []oauthclient.ClientInfo{ci}})
	if r := mustReply(t, c, bearerOnly.url); r.Principal != as.issuer+"#sub:"+id {
		t.Fatalf("principal %q, want %s's", r.Principal, id)
	}
	for _, tr := range as.tokens() {
		if tr.dpop {
			t.Errorf("the token request carried a DPoP proof for a Bearer-only resource server")
		}
	}
}
