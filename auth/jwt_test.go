package auth_test

import (
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/weftmcp/weft/auth"
)

// RFC 9068 section 4: a resource server MUST check that a JWT access token
// is typed "at+jwt" or "application/at+jwt" and refuse any other typ, so
// that another JWT of the same issuer (an ID token) is no access token.
// JWTOptions.AcceptAnyType lets in the tokens of an issuer that types none.
func TestJWT_TypeMustBeATJWT(t *testing.T) {
	is := newTestIssuer(t)
	rsaSK := signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}
	strict := newJWTProtected(t, is, auth.Config{}, nil)
	lenient := newJWTProtected(t, is, auth.Config{}, func(o *auth.JWTOptions) { o.AcceptAnyType = true })
	for _, typ := range []string{"at+jwt", "AT+JWT", "application/at+jwt", "Application/AT+JWT"} {
		t.Run("accepted "+typ, func(t *testing.T) {
			decodeSeen(t, strict.call(t, "Bearer "+is.typedToken(t, rsaSK, strict.resource, typ)))
		})
	}
	for typ, want := range map[string]string{
		"JWT":                 "the token has typ header JWT, not at+jwt",
		"":                    "the token has no typ header, not at+jwt",
		"dpop+jwt":            "typ header dpop+jwt,",
		"application/jwt":     "typ header application/jwt,",
		"at+jwt+extra":        "typ header at+jwt+extra,",
		"application/at+jwtx": "typ header application/at+jwtx,",
	} {
		t.Run("refused "+typ, func(t *testing.T) {
			resp := strict.call(t, "Bearer "+is.typedToken(t, rsaSK, strict.resource, typ))
			wantInvalidToken(t, resp, want)
			if d := challenge(t, resp).Params["error_description"]; !strings.Contains(d, "set JWTOptions.AcceptAnyType") {
				t.Errorf("error_description = %q; want it to say what to set for an issuer that does not type its tokens", d)
			}
		})
		t.Run("AcceptAnyType accepts "+typ, func(t *testing.T) {
			decodeSeen(t, lenient.call(t, "Bearer "+is.typedToken(t, rsaSK, lenient.resource, typ)))
		})
	}
}
