package oauthclient

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
	"github.com/go-json-experiment/json"
)

// DPoP (RFC 9449, SEP-1932) binds access tokens to a key the client holds:
// every token request and every request presenting the token carries a
// fresh proof, a JWT signed with that key over the request's method and
// URL. A stolen DPoP-bound token is useless without the key.

// Token types (RFC 6750, RFC 9449).
const (
	TokenTypeBearer = "Bearer"
	TokenTypeDPoP   = "DPoP"
)

// The DPoP header fields and error code (RFC 9449 sections 4.1, 8, 9).
const (
	headerDPoP        = "DPoP"
	headerDPoPNonce   = "DPoP-Nonce"
	errorUseDPoPNonce = "use_dpop_nonce"
)

// dpopProver makes DPoP proofs with one key, and remembers the nonce each
// server last supplied.
type dpopProver struct {
	alg    string
	signer jose.Signer

	mu     sync.Mutex
	nonces map[string]string // by server origin (scheme://host)
}

// newDPoPProver returns a prover signing with key, or with a new P-256 key
// when key is nil.
func newDPoPProver(key crypto.Signer) (*dpopProver, error) {
	if key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate a DPoP key: %w", err)
		}
		key = k
	}
	alg, err := algorithmFor(key.Public())
	if err != nil {
		return nil, fmt.Errorf("DPoP key: %w", err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{
		Algorithm: jose.SignatureAlgorithm(alg),
		Key:       cryptosigner.Opaque(key),
	}, (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		return nil, fmt.Errorf("DPoP signer for %s: %w", alg, err)
	}
	return &dpopProver{alg: alg, signer: signer, nonces: map[string]string{}}, nil
}

// accepts reports whether a server listing algs takes this prover's proofs.
func (p *dpopProver) accepts(algs []string) bool {
	return slices.Contains(algs, p.alg)
}

// proof returns a proof for a request with method to target, presenting
// accessToken (none for a token request), with the nonce the target's
// server last supplied.
func (p *dpopProver) proof(method string, target *url.URL, accessToken string, now time.Time) (string, error) {
	htu := url.URL{Scheme: target.Scheme, Host: target.Host, Path: target.Path, RawPath: target.RawPath}
	claims := map[string]any{
		"jti": randomString(),
		"htm": method,
		"htu": htu.String(),
		"iat": now.Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce := p.nonce(target); nonce != "" {
		claims["nonce"] = nonce
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := p.signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("sign a DPoP proof: %w", err)
	}
	return jws.CompactSerialize()
}

// nonce returns the nonce the server of target last supplied.
func (p *dpopProver) nonce(target *url.URL) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nonces[origin(target)]
}

// noteNonce remembers the nonce a response from the server of target
// supplied, if any, and reports whether it is a new one.
func (p *dpopProver) noteNonce(target *url.URL, h http.Header) bool {
	nonce := h.Get(headerDPoPNonce)
	if nonce == "" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	o := origin(target)
	if p.nonces[o] == nonce {
		return false
	}
	p.nonces[o] = nonce
	return true
}

// origin is the scheme and host of u, lowercased: the key of its server's
// nonce.
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme + "://" + u.Host)
}
