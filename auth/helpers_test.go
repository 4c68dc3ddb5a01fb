package auth_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"
)

// rsaKey is generated once: RSA key generation is slow under -race.
var rsaKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// signingKey is a private key and the JOSE header values that name it.
type signingKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func newECKey(t *testing.T, kid string) signingKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{kid: kid, alg: jose.ES256, priv: k}
}

// testIssuer is an authorization server that publishes RFC 8414 metadata and
// a JWK Set over real HTTP on 127.0.0.1, and signs tokens with real keys.
type testIssuer struct {
	srv    *httptest.Server
	issuer string

	mu        sync.Mutex
	published []signingKey
	fetches   atomic.Int32 // JWKS fetches
	down      atomic.Bool  // JWKS answers 500
	// When gate is non-nil, a JWKS request signals started and then waits
	// for gate to close.
	gate    chan struct{}
	started chan struct{}
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	is := &testIssuer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, auth.AuthorizationServerMetadata{
			Issuer:        is.issuer,
			TokenEndpoint: is.issuer + "/token",
			JWKSURI:       is.issuer + "/jwks",
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.fetches.Add(1)
		is.mu.Lock()
		gate, started := is.gate, is.started
		is.mu.Unlock()
		if gate != nil {
			started <- struct{}{}
			<-gate
		}
		if is.down.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		is.mu.Lock()
		var set jose.JSONWebKeySet
		for _, k := range is.published {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
		}
		is.mu.Unlock()
		writeJSON(w, set)
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	is.issuer = is.srv.URL
	is.publish(signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()})
	return is
}

func (is *testIssuer) publish(k signingKey) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.published = append(is.published, k)
}

// token signs claims with k; claims get iss, sub, aud and exp defaults
// unless present (a nil value deletes the claim).
func (is *testIssuer) token(t *testing.T, k signingKey, aud string, claims map[string]any) string {
	t.Helper()
	return sign(t, k, is.claims(aud, claims))
}

// typedToken signs the default claims with k, with the JOSE header typ
// ("" for none) in place of at+jwt.
func (is *testIssuer) typedToken(t *testing.T, k signingKey, aud, typ string) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	return signJWS(t, jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}}, opts, is.claims(aud, nil))
}

// claims returns the claims of a token for aud: iss, sub, aud, exp and the
// rest by default, changed by claims (a nil value deletes the claim).
func (is *testIssuer) claims(aud string, claims map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss":       is.issuer,
		"sub":       "alice",
		"aud":       aud,
		"exp":       now.Add(time.Hour).Unix(),
		"iat":       now.Unix(),
		"client_id": "client-1",
		"scope":     "mcp:read",
	}
	for name, v := range claims {
		if v == nil {
			delete(c, name)
		} else {
			c[name] = v
		}
	}
	return c
}

// sign signs claims with k as an access token (typ at+jwt, k's key ID).
func sign(t *testing.T, k signingKey, claims map[string]any) string {
	t.Helper()
	return signJWS(t, jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType("at+jwt"), claims)
}

// signJWS signs claims with key and opts into a compact JWS.
func signJWS(t *testing.T, key jose.SigningKey, opts *jose.SignerOptions, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(key, opts)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
