package authtest

import (
	"crypto"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
)

// dpopAlgorithms are the proof algorithms the token endpoint takes.
var dpopAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.RS256, jose.PS256, jose.EdDSA}

// dpopThumbprint checks the DPoP proof of a token request (RFC 9449
// section 4.3, the parts a token endpoint needs: a dpop+jwt signed with
// the key it embeds, for this method and URL, made within a minute) and
// returns the thumbprint of its key, which binds the token: "" when the
// request carries no proof.
func dpopThumbprint(r *http.Request, endpoint string) (string, error) {
	proofs := r.Header.Values("DPoP")
	switch len(proofs) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", errors.New("more than one DPoP header")
	}
	jws, err := jose.ParseSignedCompact(proofs[0], dpopAlgorithms)
	if err != nil || len(jws.Signatures) != 1 {
		return "", fmt.Errorf("the DPoP proof is not a JWS: %v", err)
	}
	h := jws.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); typ != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return "", errors.New(`the DPoP proof needs typ "dpop+jwt" and the public jwk it is signed with`)
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		return "", fmt.Errorf("the DPoP proof's signature does not verify: %v", err)
	}
	var claims struct {
		HTM string  `json:"htm"`
		HTU string  `json:"htu"`
		IAT float64 `json:"iat"`
		JTI string  `json:"jti"`
	}
	if err := json.Unmarshal(payload, &claims, json.RejectUnknownMembers(false)); err != nil {
		return "", fmt.Errorf("the DPoP proof's claims: %v", err)
	}
	issued := time.Unix(int64(claims.IAT), 0)
	switch {
	case claims.HTM != r.Method || claims.HTU != endpoint || claims.JTI == "":
		return "", fmt.Errorf("the DPoP proof is for %s %s, not %s %s, or has no jti", claims.HTM, claims.HTU, r.Method, endpoint)
	case time.Since(issued).Abs() > time.Minute:
		return "", errors.New("the DPoP proof was not made within the last minute")
	}
	sum, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(sum), nil
}
