package auth_test

import (
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/weftmcp/weft/auth"
)

// dpopKey is a client's DPoP key and its RFC 7638 thumbprint.
type dpopKey struct {
	signingKey
	thumbprint string
}

func newDPoPKey(t *testing.T) dpopKey {
	t.Helper()
	k := newECKey(t, "")
	thumb, err := (&jose.JSONWebKey{Key: k.priv.Public()}).Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return dpopKey{signingKey: k, thumbprint: base64.RawURLEncoding.EncodeToString(thumb)}
}

// proof signs a DPoP proof with k, of type typ, for method and htu,
// presenting token; mutate may change the claims first.
func (k dpopKey) proof(t *testing.T, typ, method, htu, token string, mutate func(map[string]any)) string {
	t.Helper()
	sum := sha256.Sum256([]byte(token))
	claims := map[string]any{"jti": rand.Text(), "htm": method, "htu": htu, "iat": time.Now().Unix(),
		"ath": base64.RawURLEncoding.EncodeToString(sum[:])}
	if mutate != nil {
		mutate(claims)
	}
	return signJWS(t, jose.SigningKey{Algorithm: k.alg, Key: k.priv},
		(&jose.SignerOptions{EmbedJWK: true}).WithType(jose.ContentType(typ)), claims)
}

// dpopSetup is a protected endpoint taking DPoP-bound tokens, a client key
// and a token bound to it.
type dpopSetup struct {
	is    *testIssuer
	p     *protected
	key   dpopKey
	token string
}

func newDPoPSetup(t *testing.T, cfg *auth.DPoPConfig) dpopSetup {
	is := newTestIssuer(t)
	p := newJWTProtected(t, is, auth.Config{DPoP: cfg}, nil)
	key := newDPoPKey(t)
	tok := is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, p.resource,
		map[string]any{"cnf": map[string]string{"jkt": key.thumbprint}})
	return dpopSetup{is: is, p: p, key: key, token: tok}
}

// wantInvalidProof checks a 401 with a DPoP challenge whose error is
// invalid_dpop_proof and whose description contains want.
func wantInvalidProof(t *testing.T, resp *http.Response, want string) {
	t.Helper()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("HTTP %d, want 401", resp.StatusCode)
	}
	c, ok := findDPoPChallenge(resp)
	if !ok {
		t.Fatalf("no DPoP challenge in %q", resp.Header.Values("WWW-Authenticate"))
	}
	if c.Params["error"] != auth.ErrorInvalidDPoPProof || !strings.Contains(c.Params["error_description"], want) {
		t.Errorf("DPoP challenge %v; want error=invalid_dpop_proof mentioning %q", c.Params, want)
	}
	if c.Params["algs"] == "" {
		t.Error("the DPoP challenge has no algs")
	}
}

// A DPoP-bound token with a proof signed by its key, for this request,
// reaches the handler as its principal.
func TestDPoP_BoundTokenWithProofIsAccepted(t *testing.T) {
	s := newDPoPSetup(t, &auth.DPoPConfig{})
	got := decodeSeen(t, s.p.call(t, "DPoP "+s.token, "DPoP", s.key.proof(t, "dpop+jwt", http.MethodPost, s.p.resource, s.token, nil)))
	if got.Principal != s.is.issuer+"#sub:alice" {
		t.Errorf("principal %q, want alice at the issuer", got.Principal)
	}
}

// Every way a proof can fail RFC 9449 section 4.3 is refused with
// invalid_dpop_proof, saying what is wrong.
func TestDPoP_BadProofsAreRefused(t *testing.T) {
	s := newDPoPSetup(t, &auth.DPoPConfig{})
	other := newDPoPKey(t)
	post, res := http.MethodPost, s.p.resource
	for _, tc := range []struct {
		name, proof, want string
	}{
		{"no proof", "", "exactly one DPoP header"},
		{"not a JWS", "not.a.jws", "not a compact JWS"},
		{"wrong typ", s.key.proof(t, "JWT", post, res, s.token, nil), "typ"},
		{"signature tampered", tamper(s.key.proof(t, "dpop+jwt", post, res, s.token, nil)), "signature"},
		{"another method", s.key.proof(t, "dpop+jwt", http.MethodGet, res, s.token, nil), "htm"},
		{"another URL", s.key.proof(t, "dpop+jwt", post, s.p.srv.URL+"/other", s.token, nil), "htu"},
		{"stale", s.key.proof(t, "dpop+jwt", post, res, s.token, func(c map[string]any) { c["iat"] = time.Now().Add(-10 * time.Minute).Unix() }), "iat"},
		{"ath of another token", s.key.proof(t, "dpop+jwt", post, res, "another-token", nil), "ath"},
		{"no jti", s.key.proof(t, "dpop+jwt", post, res, s.token, func(c map[string]any) { delete(c, "jti") }), "jti"},
		{"another key than the token's", other.proof(t, "dpop+jwt", post, res, s.token, nil), "another key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			headers := []string{}
			if tc.proof != "" {
				headers = []string{"DPoP", tc.proof}
			}
			wantInvalidProof(t, s.p.call(t, "DPoP "+s.token, headers...), tc.want)
		})
	}
}

// tamper changes the last character of a JWS's signature.
func tamper(jws string) string {
	b := []byte(jws)
	if b[len(b)-2] == 'A' {
		b[len(b)-2] = 'B'
	} else {
		b[len(b)-2] = 'A'
	}
	return string(b)
}

// A proof is good for one request: sent again, it is refused.
func TestDPoP_ReplayedProofIsRefused(t *testing.T) {
	s := newDPoPSetup(t, &auth.DPoPConfig{})
	proof := s.key.proof(t, "dpop+jwt", http.MethodPost, s.p.resource, s.token, nil)
	decodeSeen(t, s.p.call(t, "DPoP "+s.token, "DPoP", proof))
	wantInvalidProof(t, s.p.call(t, "DPoP "+s.token, "DPoP", proof), "used before")
}

// The token side: a bound token is refused as a Bearer token (with or
// without DPoP configured), an unbound one with the DPoP scheme, and, when
// DPoP is required, an unbound Bearer token; DPoP is refused where it is
// not configured.
func TestDPoP_TokenAndSchemeMustAgree(t *testing.T) {
	s := newDPoPSetup(t, &auth.DPoPConfig{})
	wantInvalidToken(t, s.p.call(t, "Bearer "+s.token), "DPoP-bound")

	unbound := s.is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, s.p.resource, nil)
	decodeSeen(t, s.p.call(t, "Bearer "+unbound))
	wantInvalidToken(t, s.p.call(t, "DPoP "+unbound, "DPoP", s.key.proof(t, "dpop+jwt", http.MethodPost, s.p.resource, unbound, nil)), "not DPoP-bound")

	required := newDPoPSetup(t, &auth.DPoPConfig{Required: true})
	unboundThere := required.is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, required.p.resource, nil)
	resp := required.p.call(t, "Bearer "+unboundThere)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "only DPoP-bound") {
		t.Errorf("an unbound token where DPoP is required: HTTP %d, %q", resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
	}

	without := newDPoPSetup(t, nil)
	wantInvalidToken(t, without.p.call(t, "Bearer "+without.token), "DPoP-bound")
	wantInvalidToken(t, without.p.call(t, "DPoP "+without.token, "DPoP", without.key.proof(t, "dpop+jwt", http.MethodPost, without.p.resource, without.token, nil)), "does not take DPoP")
}

// With DPoP on, a request without a token is challenged with both schemes
// (only DPoP when it is required), and the metadata says which algorithms
// proofs may use.
func TestDPoP_ChallengesAndMetadata(t *testing.T) {
	for _, required := range []bool{false, true} {
		s := newDPoPSetup(t, &auth.DPoPConfig{Algorithms: []string{"ES256", "EdDSA"}, Required: required})
		resp := s.p.call(t, "")
		schemes := map[string]auth.Challenge{}
		for _, c := range auth.ParseChallenges(resp.Header.Values("WWW-Authenticate")) {
			schemes[c.Scheme] = c
		}
		if _, bearer := schemes["Bearer"]; bearer == required {
			t.Errorf("required=%v: Bearer challenge present = %v", required, bearer)
		}
		if d, ok := schemes["DPoP"]; !ok || d.Params["algs"] != "ES256 EdDSA" || d.Params["resource_metadata"] == "" {
			t.Errorf("required=%v: DPoP challenge %v; want algs=\"ES256 EdDSA\" and resource_metadata", required, d)
		}
		m := s.p.rs.Metadata()
		if strings.Join(m.DPoPSigningAlgValuesSupported, " ") != "ES256 EdDSA" || m.DPoPBoundAccessTokensRequired != required {
			t.Errorf("required=%v: metadata algs %q, required %v", required, m.DPoPSigningAlgValuesSupported, m.DPoPBoundAccessTokensRequired)
		}
	}
	for _, bad := range []struct {
		what string
		cfg  auth.DPoPConfig
	}{
		{"a symmetric DPoP algorithm", auth.DPoPConfig{Algorithms: []string{"HS256"}}},
		{"a negative proof lifetime, which refuses every proof", auth.DPoPConfig{ProofLifetime: -time.Minute}},
		{"an empty nonce secret, which makes nonces forgeable", auth.DPoPConfig{NonceWindow: time.Minute, NonceSecret: []byte{}}},
		{"a nonce secret of 8 bytes", auth.DPoPConfig{NonceWindow: time.Minute, NonceSecret: []byte("12345678")}},
	} {
		if _, err := auth.New(auth.Config{Resource: "https://mcp.example/mcp", AuthorizationServers: []string{"https://as.example"},
			Verifier: auth.VerifierFunc(nil), DPoP: &bad.cfg}); err == nil {
			t.Errorf("%s was accepted", bad.what)
		}
	}
}

// A server issuing nonces hands one out on every response, and refuses a
// proof without a current one with use_dpop_nonce.
func TestDPoP_ServerNonces(t *testing.T) {
	s := newDPoPSetup(t, &auth.DPoPConfig{NonceWindow: time.Hour})
	post, res := http.MethodPost, s.p.resource
	withNonce := func(nonce string) func(map[string]any) {
		return func(c map[string]any) { c["nonce"] = nonce }
	}
	first := s.p.call(t, "DPoP "+s.token, "DPoP", s.key.proof(t, "dpop+jwt", post, res, s.token, nil))
	nonce := first.Header.Get("DPoP-Nonce")
	if first.StatusCode != http.StatusUnauthorized || nonce == "" {
		t.Fatalf("a proof without a nonce: HTTP %d, DPoP-Nonce %q; want 401 with a nonce", first.StatusCode, nonce)
	}
	c, _ := findDPoPChallenge(first)
	if c.Params["error"] != auth.ErrorUseDPoPNonce {
		t.Errorf("challenge error %q, want use_dpop_nonce", c.Params["error"])
	}
	wrong := s.p.call(t, "DPoP "+s.token, "DPoP", s.key.proof(t, "dpop+jwt", post, res, s.token, withNonce("made-up")))
	if c, _ := findDPoPChallenge(wrong); wrong.StatusCode != http.StatusUnauthorized || c.Params["error"] != auth.ErrorUseDPoPNonce {
		t.Errorf("a made-up nonce: HTTP %d, challenge %v; want 401 use_dpop_nonce", wrong.StatusCode, c.Params)
	}
	ok := s.p.call(t, "DPoP "+s.token, "DPoP", s.key.proof(t, "dpop+jwt", post, res, s.token, withNonce(nonce)))
	decodeSeen(t, ok)
	if ok.Header.Get("DPoP-Nonce") == "" {
		t.Error("a successful response carries no DPoP-Nonce")
	}
}

// findDPoPChallenge returns a response's DPoP challenge.
func findDPoPChallenge(resp *http.Response) (auth.Challenge, bool) {
	for _, c := range auth.ParseChallenges(resp.Header.Values("WWW-Authenticate")) {
		if strings.EqualFold(c.Scheme, "DPoP") {
			return c, true
		}
	}
	return auth.Challenge{}, false
}

// A proof refused because its key is not the token's is not remembered
// against replay: only the proofs of keys tokens are bound to take room
// there, so the token's own client may use the same jti.
func TestDPoP_AProofRefusedForItsKeyIsNotRemembered(t *testing.T) {
	s := newDPoPSetup(t, &auth.DPoPConfig{})
	sameJTI := func(c map[string]any) { c["jti"] = "one-jti" }
	other := newDPoPKey(t)
	wantInvalidProof(t, s.p.call(t, "DPoP "+s.token, "DPoP", other.proof(t, "dpop+jwt", http.MethodPost, s.p.resource, s.token, sameJTI)), "another key")
	decodeSeen(t, s.p.call(t, "DPoP "+s.token, "DPoP", s.key.proof(t, "dpop+jwt", http.MethodPost, s.p.resource, s.token, sameJTI)))
}
