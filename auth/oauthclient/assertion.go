package oauthclient

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
	"github.com/go-json-experiment/json"
)

// clientAssertion returns a private_key_jwt client assertion (RFC 7523
// section 2.2): a JWT with the client ID as issuer and subject, the
// authorization server's issuer identifier as audience, valid for five
// minutes, signed with ci.PrivateKey.
func clientAssertion(ci *ClientInfo, audience string, now time.Time) (string, error) {
	if ci.PrivateKey == nil {
		return "", fmt.Errorf("client %q uses private_key_jwt but ClientInfo.PrivateKey is nil", ci.ClientID)
	}
	alg := ci.SigningAlgorithm
	if alg == "" {
		var err error
		if alg, err = algorithmFor(ci.PrivateKey.Public()); err != nil {
			return "", err
		}
	}
	signer, err := jose.NewSigner(jose.SigningKey{
		Algorithm: jose.SignatureAlgorithm(alg),
		Key:       jose.JSONWebKey{Key: cryptosigner.Opaque(ci.PrivateKey), KeyID: ci.KeyID},
	}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("client assertion signer for %s: %w", alg, err)
	}
	payload, err := json.Marshal(map[string]any{
		"iss": ci.ClientID,
		"sub": ci.ClientID,
		"aud": audience,
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
		"jti": randomString(),
	})
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("sign the client assertion: %w", err)
	}
	return jws.CompactSerialize()
}

// algorithmFor returns the JWS algorithm for a public key.
func algorithmFor(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return "RS256", nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
	case ed25519.PublicKey:
		return "EdDSA", nil
	}
	return "", fmt.Errorf("no JWS algorithm for a %T key; set ClientInfo.SigningAlgorithm", pub)
}

// ParsePrivateKeyPEM parses a PEM-encoded private key (PKCS #8, PKCS #1 RSA
// or SEC 1 EC) for ClientInfo.PrivateKey.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("oauthclient: no PEM block in the private key")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("oauthclient: PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("oauthclient: parse the private key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("oauthclient: a %T cannot sign", key)
	}
	return signer, nil
}
