package auth

import (
	"context"
	"errors"
)

// ErrInvalidToken marks a token that is malformed, expired, not yet valid,
// signed by an unknown key, or meant for another issuer or resource. A
// [Verifier] wraps it (fmt.Errorf("%w: ...", ErrInvalidToken)) so that the
// middleware answers 401 with error="invalid_token"; any other error means
// verification itself failed (for example the JWKS could not be fetched) and
// the middleware answers 503.
var ErrInvalidToken = errors.New("invalid access token")

// A Verifier checks an access token and reports what it grants. It must
// check that the token is meant for this resource (its audience, RFC 8707)
// and issuer, and that it is within its validity period; the middleware
// checks the audience and expiry again from the returned [TokenInfo].
// Verify is called concurrently. Its errors are logged and shown to the
// client, so they must never contain the token.
type Verifier interface {
	Verify(ctx context.Context, token string) (*TokenInfo, error)
}

// VerifierFunc adapts a function to a [Verifier], for example one that asks
// a database of opaque tokens or wraps an introspection call.
type VerifierFunc func(ctx context.Context, token string) (*TokenInfo, error)

// Verify calls f.
func (f VerifierFunc) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	return f(ctx, token)
}
