package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
)

// checkCertificateBinding refuses a certificate-bound token (RFC 8705
// section 3) unless r came over TLS with a client certificate whose SHA-256
// thumbprint is the token's. The TLS handshake proved the client holds the
// certificate's key, so the thumbprint is all there is to compare; the
// certificate's chain is not checked, as RFC 8705 section 2.2 allows for
// self-signed certificates. Behind a proxy that ends TLS the request has
// no certificate and such tokens are refused: a header the proxy would set
// cannot be told from one the client set.
func checkCertificateBinding(r *http.Request, info *TokenInfo) error {
	if info.CertificateThumbprint == "" {
		return nil
	}
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return invalidf("the token is bound to a client certificate (RFC 8705): present it over TLS with that certificate")
	}
	sum := sha256.Sum256(r.TLS.PeerCertificates[0].Raw)
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	if subtle.ConstantTimeCompare([]byte(got), []byte(info.CertificateThumbprint)) != 1 {
		return invalidf("the token is bound to another client certificate than the one this connection presented")
	}
	return nil
}
