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
	"strconv"
	"strings"
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
	// NonceSecret keys the nonces: at least 16 random bytes, or nil for a
	// random key. Instances behind one load balancer should share one, so
	// that each accepts the others' nonces.
	NonceSecret []byte
}

// minNonceSecret is the fewest bytes of DPoPConfig.NonceSecret accepted.
const minNonceSecret = 16

// defaultDPoPAlgorithms are accepted for proofs when DPoPConfig.Algorithms
// is nil.
var defaultDPoPAlgorithms = []string{"ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA"}

// dpopChecker checks DPoP proofs for one resource.
type dpopChecker struct {
	algs     []jose.SignatureAlgorithm
	names    string // the algorithms, space-separated, for challenges
	required bool
	lifetime time.Duration
	htu      string       // the resource's URL as proofs must name it
	nonces   *dpopNonces  // nil unless the server issues nonces
	replays  *dpopReplays // the proofs accepted, against replay
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
	switch {
	case lifetime == 0:
		lifetime = 5 * time.Minute
	case lifetime < 0:
		return nil, fmt.Errorf("auth: DPoPConfig.ProofLifetime is %v; it must be positive (or zero for five minutes)", lifetime)
	}
	if cfg.NonceSecret != nil && len(cfg.NonceSecret) < minNonceSecret {
		return nil, fmt.Errorf("auth: DPoPConfig.NonceSecret has %d bytes; nonces keyed by fewer than %d could be forged: give a longer random secret, or nil for a random one", len(cfg.NonceSecret), minNonceSecret)
	}
	d := &dpopChecker{algs: algs, names: strings.Join(names, " "), required: cfg.Required,
		lifetime: lifetime, htu: normalizeHTU(resource),
		// iat may be up to a lifetime ahead of now, and a lifetime behind.
		replays: newDPoPReplays(2*lifetime, maxDPoPReplayEntries, maxDPoPProofsPerKey)}
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

// dpopProof is what the checker keeps of a proof it verified.
type dpopProof struct {
	thumb string // the thumbprint of the key it was signed with (RFC 7638)
	jti   string
}

// check verifies the DPoP proof of r, which presents token, as RFC 9449
// section 4.3 says, all but replay: the caller remembers the proof once
// its key is the one the token is bound to (dpopReplays.remember).
func (d *dpopChecker) check(r *http.Request, token string, now time.Time) (dpopProof, error) {
	values := r.Header.Values("DPoP")
	if len(values) != 1 {
		return dpopProof{}, proofErrorf("the request must carry exactly one DPoP header with a proof, not %d", len(values))
	}
	jws, err := jose.ParseSignedCompact(values[0], d.algs)
	if err != nil {
		return dpopProof{}, proofErrorf("not a compact JWS signed with an accepted algorithm (%s): %v", d.names, err)
	}
	hdr := jws.Signatures[0].Protected
	if typ, _ := hdr.ExtraHeaders["typ"].(string); typ != "dpop+jwt" {
		return dpopProof{}, proofErrorf("its typ is %q, not dpop+jwt", typ)
	}
	if hdr.JSONWebKey == nil || !hdr.JSONWebKey.IsPublic() || !hdr.JSONWebKey.Valid() {
		return dpopProof{}, proofErrorf("its jwk header must hold a public key")
	}
	payload, err := jws.Verify(hdr.JSONWebKey)
	if err != nil {
		return dpopProof{}, proofErrorf("its signature does not verify with its jwk")
	}
	var c dpopClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return dpopProof{}, proofErrorf("its claims are not valid JSON of the expected types: %v", err)
	}
	switch {
	case c.JTI == nil || *c.JTI == "" || c.HTM == nil || c.HTU == nil || c.IAT == nil || c.ATH == nil:
		return dpopProof{}, proofErrorf("it must have the jti, htm, htu, iat and ath claims")
	case *c.HTM != r.Method:
		return dpopProof{}, proofErrorf("its htm is %q, but the request is a %s", *c.HTM, r.Method)
	case normalizeHTU(*c.HTU) != d.htu:
		return dpopProof{}, proofErrorf("its htu is %q, not this resource's URL %s", *c.HTU, d.htu)
	case now.Sub(time.Unix(int64(*c.IAT), 0)).Abs() > d.lifetime:
		return dpopProof{}, proofErrorf("its iat is more than %s from now", d.lifetime)
	}
	if d.nonces != nil && (c.Nonce == nil || !d.nonces.valid(*c.Nonce, now)) {
		return dpopProof{}, errUseDPoPNonce
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare([]byte(*c.ATH), []byte(base64.RawURLEncoding.EncodeToString(sum[:]))) != 1 {
		return dpopProof{}, proofErrorf("its ath is not the hash of the access token presented")
	}
	thumb, err := hdr.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return dpopProof{}, proofErrorf("its jwk has no thumbprint: %v", err)
	}
	return dpopProof{thumb: base64.RawURLEncoding.EncodeToString(thumb), jti: *c.JTI}, nil
}

// proofErrorf returns an error wrapping ErrInvalidDPoPProof.
func proofErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidDPoPProof}, args...)...)
}

// normalizeHTU is a URL as proofs are compared by, with the syntax- and
// scheme-based normalization RFC 9449 section 4.3 asks for (RFC 3986
// section 6.2.2 and 6.2.3): scheme and host lowercased, the scheme's
// default port dropped, percent-encoded unreserved characters decoded and
// other escapes' hex digits uppercased; without query, fragment or a
// trailing slash.
func normalizeHTU(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return scheme + "://" + host + strings.TrimSuffix(normalizeEscapes(u.EscapedPath()), "/")
}

// normalizeEscapes decodes the percent-encoded unreserved characters of an
// escaped path and uppercases the hex digits of the other escapes.
func normalizeEscapes(path string) string {
	if !strings.Contains(path, "%") {
		return path
	}
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] != '%' || i+2 >= len(path) {
			b.WriteByte(path[i])
			continue
		}
		c, err := strconv.ParseUint(path[i+1:i+3], 16, 8)
		if err != nil {
			b.WriteByte(path[i])
			continue
		}
		if unreserved(byte(c)) {
			b.WriteByte(byte(c))
		} else {
			b.WriteString("%" + strings.ToUpper(path[i+1:i+3]))
		}
		i += 2
	}
	return b.String()
}

// unreserved reports whether c is an unreserved character of RFC 3986.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
