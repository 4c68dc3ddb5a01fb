package oauthclient

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// randomString returns 32 random bytes, base64url-encoded (43 characters of
// the unreserved set, as RFC 7636 requires of a code verifier).
func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// s256 returns the S256 code challenge of a PKCE code verifier (RFC 7636).
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
