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
	"github.com/go-jose/go-jose/v4/jwt"
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
	// AcceptAnyType accepts a token whatever its JOSE "typ" header says.
	// By default a token must be typed "at+jwt" or "application/at+jwt"
	// (in any case), as RFC 9068 section 4 requires of resource servers, so
	// that another JWT signed by the same issuer (an ID token, say) cannot
	// be presented as an access token. Set it only for an issuer that does
	// not type its access tokens (some send "JWT", or no "typ"), and only if
	// that issuer signs no other JWTs naming this resource as audience.
	AcceptAnyType bool
}

// JWTVerifier verifies JWT access tokens (RFC 9068 profile) signed with a key
// from the issuer's JWK Set. It is a [Verifier].
type JWTVerifier struct {
	issuer   string
	audience string
	algs     []jose.SignatureAlgorithm
	leeway   time.Duration
	anyType  bool
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
		anyType:  opts.AcceptAnyType,
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

// jwtClaims are the registered claims (go-jose's, which it validates) and
// the access-token claims the verifier reads.
type jwtClaims struct {
	jwt.Claims
	Scope    string     `json:"scope"`
	Scp      stringList `json:"scp"`
	ClientID string     `json:"client_id"`
	AZP      string     `json:"azp"`
	Cnf      *cnfClaim  `json:"cnf"`
}

// cnfClaim is the confirmation claim of a sender-constrained token.
type cnfClaim struct {
	JKT     string `json:"jkt"`      // RFC 9449: the thumbprint of the DPoP key
	X5tS256 string `json:"x5t#S256"` // RFC 8705: the thumbprint of the client certificate
}

// jkt returns the DPoP key thumbprint the claim binds to, "" for none.
func (c *cnfClaim) jkt() string {
	if c == nil {
		return ""
	}
	return c.JKT
}

// x5t returns the client certificate thumbprint the claim binds to, ""
// for none.
func (c *cnfClaim) x5t() string {
	if c == nil {
		return ""
	}
	return c.X5tS256
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

// Verify checks the token's type (at+jwt, unless JWTOptions.AcceptAnyType),
// signature, issuer, audience and validity period.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	jws, err := jose.ParseSignedCompact(token, v.algs)
	if err != nil {
		return nil, invalidf("not a compact JWS signed with an allowed algorithm (%s): %v", v.algNames(), err)
	}
	if len(jws.Signatures) != 1 {
		return nil, invalidf("the token has %d signatures, want 1", len(jws.Signatures))
	}
	hdr := jws.Signatures[0].Header
	if err := v.checkType(hdr); err != nil {
		return nil, err
	}
	key, err := v.keys.key(ctx, hdr.KeyID, hdr.Algorithm)
	if err != nil {
		return nil, err
	}
	payload, err := jws.Verify(key)
	if err != nil {
		return nil, invalidf("the signature does not verify with key %q of %s", hdr.KeyID, v.issuer)
	}
	// The claims are decoded strictly (names match with case, no
	// duplicates), not with go-jose's JSONWebToken.Claims, which uses
	// encoding/json; go-jose's jwt types and validation do the rest.
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
		Expiry:   c.Expiry.Time(),
		Claims:   all,

		Confirmation:          c.Cnf.jkt(),
		CertificateThumbprint: c.Cnf.x5t(),
	}, nil
}

// checkType checks the JOSE "typ" header: RFC 9068 section 4 has resource
// servers refuse a JWT access token not typed "at+jwt" (media types are
// case-insensitive, and the "application/" prefix may be left out).
func (v *JWTVerifier) checkType(hdr jose.Header) error {
	if v.anyType {
		return nil
	}
	raw, present := hdr.ExtraHeaders[jose.HeaderType]
	typ, _ := raw.(string)
	if strings.EqualFold(typ, "at+jwt") || strings.EqualFold(typ, "application/at+jwt") {
		return nil
	}
	// No double quotes: the message goes into a WWW-Authenticate quoted-string.
	what := "no typ header"
	if present {
		what = fmt.Sprintf("typ header %v", raw)
	}
	return invalidf("the token has %s, not at+jwt: RFC 9068 types access tokens so that no other JWT passes for one; "+
		"if its issuer does not type its access tokens, set JWTOptions.AcceptAnyType", what)
}

// checkClaims checks the registered claims with go-jose's validation: the
// issuer, the audience, and exp, nbf and iat against now with the leeway.
// exp is required.
func (v *JWTVerifier) checkClaims(c *jwtClaims, now time.Time) error {
	if c.Expiry == nil {
		return invalidf("the token has no expiry (exp)")
	}
	err := c.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: jwt.Audience{v.audience}, Time: now}, v.leeway)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return invalidf("the token was issued by %q, not %q", c.Issuer, v.issuer)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return invalidf("the token is not meant for %s (its audience is %q)", v.audience, []string(c.Audience))
	case errors.Is(err, jwt.ErrExpired):
		return invalidf("the token expired at %s", c.Expiry.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrNotValidYet):
		return invalidf("the token is not valid before %s", c.NotBefore.Time().UTC().Format(time.RFC3339))
	case errors.Is(err, jwt.ErrIssuedInTheFuture):
		return invalidf("the token claims to be issued in the future, at %s", c.IssuedAt.Time().UTC().Format(time.RFC3339))
	}
	return invalidf("%v", err)
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
