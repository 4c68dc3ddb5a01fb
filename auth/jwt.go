package auth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// JWTOptions configures [NewJWTVerifier].
type JWTOptions struct {
	// Issuer is the issuer identifier tokens must carry in "iss", exactly.
	// Required.
	Issuer string
	// Audience is the resource tokens must name in "aud": the MCP endpoint's
	// canonical URL, the same as [Config.Resource]. Required.
	Audience string
	// JWKSURL is where the issuer publishes its signing keys. Empty means
	// discover it from the issuer's authorization server metadata.
	JWKSURL string
	// Algorithms lists the signature algorithms accepted; nil means RS256
	// and ES256. Only asymmetric algorithms (RS*, PS*, ES*, EdDSA) are
	// allowed: "none" and HMAC can never verify, so a public key can never
	// be used as an HMAC secret.
	Algorithms []string
	// Leeway is the clock skew allowed for "exp", "nbf" and "iat"; zero means
	// 30 seconds.
	Leeway time.Duration
	// HTTPClient fetches metadata and keys; nil means a client with a
	// 10-second timeout.
	HTTPClient *http.Client
	// RefreshInterval is the least time between two fetches of the key set,
	// however many tokens name unknown keys; zero means one minute.
	RefreshInterval time.Duration
	// MaxKeyAge is how long fetched keys are used before they are fetched
	// again; zero means one hour.
	MaxKeyAge time.Duration
}

// JWTVerifier verifies JWT access tokens (RFC 9068 profile) signed with a key
// from the issuer's JWK Set. It is a [Verifier].
type JWTVerifier struct {
	issuer   string
	audience string
	algs     []jose.SignatureAlgorithm
	leeway   time.Duration
	keys     *keySet
}

var asymmetricAlgorithms = []string{
	"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
}

// NewJWTVerifier returns a verifier for tokens of one issuer and audience.
func NewJWTVerifier(opts JWTOptions) (*JWTVerifier, error) {
	if err := fetch.CheckSecureURL("auth: JWTOptions.Issuer", opts.Issuer); err != nil {
		return nil, err
	}
	if opts.Audience == "" {
		return nil, errors.New("auth: JWTOptions.Audience is empty; set it to the MCP endpoint's canonical URL")
	}
	if opts.JWKSURL != "" {
		if err := fetch.CheckSecureURL("auth: JWTOptions.JWKSURL", opts.JWKSURL); err != nil {
			return nil, err
		}
	}
	names := opts.Algorithms
	if names == nil {
		names = []string{"RS256", "ES256"}
	}
	if len(names) == 0 {
		return nil, errors.New("auth: JWTOptions.Algorithms is empty; list at least one algorithm or leave it nil")
	}
	algs := make([]jose.SignatureAlgorithm, 0, len(names))
	for _, n := range names {
		if !slices.Contains(asymmetricAlgorithms, n) {
			return nil, fmt.Errorf("auth: algorithm %q is not allowed; use one of %s", n, strings.Join(asymmetricAlgorithms, ", "))
		}
		algs = append(algs, jose.SignatureAlgorithm(n))
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: jwksFetchTimout}
	}
	v := &JWTVerifier{
		issuer:   opts.Issuer,
		audience: opts.Audience,
		algs:     algs,
		leeway:   positiveOr(opts.Leeway, DefaultLeeway),
		keys: &keySet{
			hc:          hc,
			issuer:      opts.Issuer,
			uri:         opts.JWKSURL,
			minInterval: positiveOr(opts.RefreshInterval, time.Minute),
			maxAge:      positiveOr(opts.MaxKeyAge, time.Hour),
			now:         time.Now,
		},
	}
	return v, nil
}

// positiveOr returns d, or def when d is not positive.
func positiveOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// jwtClaims are the registered and access-token claims the verifier reads.
type jwtClaims struct {
	Issuer    string     `json:"iss"`
	Subject   string     `json:"sub"`
	Audience  stringList `json:"aud"`
	Expiry    *float64   `json:"exp"`
	NotBefore *float64   `json:"nbf"`
	IssuedAt  *float64   `json:"iat"`
	Scope     string     `json:"scope"`
	Scp       stringList `json:"scp"`
	ClientID  string     `json:"client_id"`
	AZP       string     `json:"azp"`
	Cnf       *cnfClaim  `json:"cnf"`
}

// cnfClaim is the confirmation claim of a sender-constrained token.
type cnfClaim struct {
	JKT string `json:"jkt"` // RFC 9449: the thumbprint of the DPoP key
}

// jkt returns the DPoP key thumbprint the claim binds to, "" for none.
func (c *cnfClaim) jkt() string {
	if c == nil {
		return ""
	}
	return c.JKT
}

// stringList is a JSON string or array of strings, as "aud" and "scp" may be.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = stringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("want a string or an array of strings")
	}
	*l = many
	return nil
}

// Verify checks the token's signature, issuer, audience and validity period.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	jws, err := jose.ParseSignedCompact(token, v.algs)
	if err != nil {
		return nil, invalidf("not a compact JWS signed with an allowed algorithm (%s): %v", v.algNames(), err)
	}
	if len(jws.Signatures) != 1 {
		return nil, invalidf("the token has %d signatures, want 1", len(jws.Signatures))
	}
	hdr := jws.Signatures[0].Header
	key, err := v.keys.key(ctx, hdr.KeyID, hdr.Algorithm)
	if err != nil {
		return nil, err
	}
	payload, err := jws.Verify(key)
	if err != nil {
		return nil, invalidf("the signature does not verify with key %q of %s", hdr.KeyID, v.issuer)
	}
	var c jwtClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, invalidf("the claims are not valid JSON of the expected types: %v", err)
	}
	var all map[string]any
	if err := json.Unmarshal(payload, &all); err != nil {
		return nil, invalidf("the claims are not a JSON object: %v", err)
	}
	if err := v.checkClaims(&c, time.Now()); err != nil {
		return nil, err
	}
	scopes := strings.Fields(c.Scope)
	if len(scopes) == 0 {
		scopes = c.Scp
	}
	return &TokenInfo{
		Issuer:   c.Issuer,
		Subject:  c.Subject,
		ClientID: cmp.Or(c.ClientID, c.AZP),
		Scopes:   scopes,
		Audience: c.Audience,
		Expiry:   unixTime(*c.Expiry),
		Claims:   all,

		Confirmation: c.Cnf.jkt(),
	}, nil
}

func (v *JWTVerifier) checkClaims(c *jwtClaims, now time.Time) error {
	if c.Issuer != v.issuer {
		return invalidf("the token was issued by %q, not %q", c.Issuer, v.issuer)
	}
	if !slices.Contains(c.Audience, v.audience) {
		return invalidf("the token is not meant for %s (its audience is %q)", v.audience, []string(c.Audience))
	}
	if c.Expiry == nil {
		return invalidf("the token has no expiry (exp)")
	}
	if exp := unixTime(*c.Expiry); !now.Before(exp.Add(v.leeway)) {
		return invalidf("the token expired at %s", exp.UTC().Format(time.RFC3339))
	}
	if c.NotBefore != nil {
		if nbf := unixTime(*c.NotBefore); now.Add(v.leeway).Before(nbf) {
			return invalidf("the token is not valid before %s", nbf.UTC().Format(time.RFC3339))
		}
	}
	if c.IssuedAt != nil {
		if iat := unixTime(*c.IssuedAt); now.Add(v.leeway).Before(iat) {
			return invalidf("the token claims to be issued in the future, at %s", iat.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

func (v *JWTVerifier) algNames() string {
	names := make([]string, len(v.algs))
	for i, a := range v.algs {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}

// unixTime converts a NumericDate, which may have a fraction, to a time.
func unixTime(f float64) time.Time {
	const limit = 1e12 // about the year 33658; beyond it int64 nanoseconds overflow
	switch {
	case math.IsNaN(f):
		return time.Time{}
	case f > limit:
		f = limit
	case f < -limit:
		f = -limit
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9))
}
