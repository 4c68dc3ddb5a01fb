package auth

import (
	"crypto"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
)

// DPoP (RFC 9449): a token bound to a client's key (its cnf.jkt) is only
// accepted with the DPoP scheme and a fresh proof signed with that key over
// the request, so a stolen token is of no use without the key.

// ErrInvalidDPoPProof is the error (found with errors.Is) of a request whose
// DPoP proof is missing, malformed, stale, replayed or for another request
// or key; the middleware answers it with 401 and error="invalid_dpop_proof"
// in a DPoP challenge.
var ErrInvalidDPoPProof = errors.New("invalid DPoP proof")

// DPoPConfig makes a resource server accept DPoP-bound tokens.
type DPoPConfig struct {
	// Algorithms are the JWS algorithms accepted for proofs; nil means
	// ES256, ES384, ES512, RS256, PS256 and EdDSA.
	Algorithms []string
	// Required refuses tokens that are not DPoP-bound.
	Required bool
	// ProofLifetime bounds how far a proof's iat may be from now; zero
	// means five minutes. A proof is refused if its jti was seen within
	// this long.
	ProofLifetime time.Duration
	// NonceWindow, when set, makes the server issue nonces (RFC 9449
	// section 9) in the DPoP-Nonce header of every response and require
	// proofs to carry a current one; a nonce is good for two windows.
	// Nonces limit how long a proof made in advance stays usable.
	NonceWindow time.Duration
	// NonceSecret keys the nonces; nil means a random key. Instances
	// behind one load balancer should share one, so that each accepts the
	// others' nonces.
	NonceSecret []byte
}

// defaultDPoPAlgorithms are accepted for proofs when DPoPConfig.Algorithms
// is nil.
var defaultDPoPAlgorithms = []string{"ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA"}

// maxDPoPReplayEntries bounds the proofs remembered against replay; past
// it, new proofs are refused until old ones age out (a flood of proofs
// cannot grow memory without limit).
const maxDPoPReplayEntries = 100_000

// dpopChecker checks DPoP proofs for one resource.
type dpopChecker struct {
	algs     []jose.SignatureAlgorithm
	names    string // the algorithms, space-separated, for challenges
	required bool
	lifetime time.Duration
	htu      string      // the resource's URL as proofs must name it
	nonces   *dpopNonces // nil unless the server issues nonces

	mu   sync.Mutex
	seen map[string]time.Time // jti → when it may be forgotten
}

// newDPoPChecker returns a checker for proofs of requests to resource.
func newDPoPChecker(cfg *DPoPConfig, resource string) (*dpopChecker, error) {
	names := cfg.Algorithms
	if names == nil {
		names = defaultDPoPAlgorithms
	}
	algs := make([]jose.SignatureAlgorithm, len(names))
	for i, n := range names {
		if n == "none" || strings.HasPrefix(n, "HS") {
			return nil, fmt.Errorf("auth: DPoPConfig.Algorithms lists %q; DPoP proofs need an asymmetric algorithm", n)
		}
		algs[i] = jose.SignatureAlgorithm(n)
	}
	lifetime := cfg.ProofLifetime
	if lifetime == 0 {
		lifetime = 5 * time.Minute
	}
	d := &dpopChecker{algs: algs, names: strings.Join(names, " "), required: cfg.Required,
		lifetime: lifetime, htu: normalizeHTU(resource), seen: map[string]time.Time{}}
	if cfg.NonceWindow > 0 {
		d.nonces = newDPoPNonces(cfg.NonceWindow, cfg.NonceSecret)
	}
	return d, nil
}

// dpopClaims are the claims of a proof (RFC 9449 section 4.2).
type dpopClaims struct {
	JTI   *string  `json:"jti"`
	HTM   *string  `json:"htm"`
	HTU   *string  `json:"htu"`
	IAT   *float64 `json:"iat"`
	ATH   *string  `json:"ath"`
	Nonce *string  `json:"nonce"`
}

// check verifies the DPoP proof of r, which presents token, as RFC 9449
// section 4.3 says, and returns the thumbprint of the key it was signed
// with.
func (d *dpopChecker) check(r *http.Request, token string, now time.Time) (string, error) {
	values := r.Header.Values("DPoP")
	if len(values) != 1 {
		return "", proofErrorf("the request must carry exactly one DPoP header with a proof, not %d", len(values))
	}
	jws, err := jose.ParseSignedCompact(values[0], d.algs)
	if err != nil {
		return "", proofErrorf("not a compact JWS signed with an accepted algorithm (%s): %v", d.names, err)
	}
	hdr := jws.Signatures[0].Protected
	if typ, _ := hdr.ExtraHeaders["typ"].(string); typ != "dpop+jwt" {
		return "", proofErrorf("its typ is %q, not dpop+jwt", typ)
	}
	if hdr.JSONWebKey == nil || !hdr.JSONWebKey.IsPublic() || !hdr.JSONWebKey.Valid() {
		return "", proofErrorf("its jwk header must hold a public key")
	}
	payload, err := jws.Verify(hdr.JSONWebKey)
	if err != nil {
		return "", proofErrorf("its signature does not verify with its jwk")
	}
	var c dpopClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return "", proofErrorf("its claims are not valid JSON of the expected types: %v", err)
	}
	switch {
	case c.JTI == nil || *c.JTI == "" || c.HTM == nil || c.HTU == nil || c.IAT == nil || c.ATH == nil:
		return "", proofErrorf("it must have the jti, htm, htu, iat and ath claims")
	case *c.HTM != r.Method:
		return "", proofErrorf("its htm is %q, but the request is a %s", *c.HTM, r.Method)
	case normalizeHTU(*c.HTU) != d.htu:
		return "", proofErrorf("its htu is %q, not this resource's URL %s", *c.HTU, d.htu)
	case now.Sub(time.Unix(int64(*c.IAT), 0)).Abs() > d.lifetime:
		return "", proofErrorf("its iat is more than %s from now", d.lifetime)
	}
	if d.nonces != nil && (c.Nonce == nil || !d.nonces.valid(*c.Nonce, now)) {
		return "", errUseDPoPNonce
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare([]byte(*c.ATH), []byte(base64.RawURLEncoding.EncodeToString(sum[:]))) != 1 {
		return "", proofErrorf("its ath is not the hash of the access token presented")
	}
	if err := d.remember(*c.JTI, now); err != nil {
		return "", err
	}
	thumb, err := hdr.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", proofErrorf("its jwk has no thumbprint: %v", err)
	}
	return base64.RawURLEncoding.EncodeToString(thumb), nil
}

// remember records jti, refusing one seen within the proof lifetime.
func (d *dpopChecker) remember(jti string, now time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if until, ok := d.seen[jti]; ok && now.Before(until) {
		return proofErrorf("its jti was used before; send a fresh proof with every request")
	}
	if len(d.seen) >= maxDPoPReplayEntries {
		for k, until := range d.seen {
			if !now.Before(until) {
				delete(d.seen, k)
			}
		}
		if len(d.seen) >= maxDPoPReplayEntries {
			return proofErrorf("the server is remembering too many recent proofs; retry shortly")
		}
	}
	d.seen[jti] = now.Add(2 * d.lifetime) // iat may be up to a lifetime ahead
	return nil
}

// proofErrorf returns an error wrapping ErrInvalidDPoPProof.
func proofErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidDPoPProof}, args...)...)
}

// normalizeHTU is a URL as proofs are compared by: scheme and host
// lowercased, without query, fragment or a trailing slash.
func normalizeHTU(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/")
}
