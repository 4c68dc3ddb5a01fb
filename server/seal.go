package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// sealer signs the opaque tokens the server hands to clients and gets back
// unchanged: requestState for multi round-trip requests and pagination
// cursors. A token is base64url(payload || HMAC-SHA256(key, payload)); the
// payload is readable by whoever holds the token, so it never carries secrets.
// Each use has its own key, derived from the server key with a purpose label,
// so a cursor can never pass as a requestState or the other way round.
type sealer struct {
	key []byte
}

// newSealer derives the sealer for purpose from the server key.
func newSealer(serverKey []byte, purpose string) sealer {
	mac := hmac.New(sha256.New, serverKey)
	mac.Write([]byte("weft/server/" + purpose))
	return sealer{key: mac.Sum(nil)}
}

// randomKey returns a fresh 32-byte key from crypto/rand.
func randomKey() []byte {
	key := make([]byte, 32)
	rand.Read(key) // never fails on supported platforms (Go 1.24+ crashes instead)
	return key
}

// seal returns the token for payload.
func (s sealer) seal(payload []byte) string {
	mac := hmac.New(sha256.New, s.key)
	mac.Write(payload)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(payload[:len(payload):len(payload)]))
}

// open verifies token and returns its payload; ok is false when the token is
// not base64url or its signature does not match (it was altered or made with
// another key).
func (s sealer) open(token string) (payload []byte, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < sha256.Size {
		return nil, false
	}
	payload, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	mac := hmac.New(sha256.New, s.key)
	mac.Write(payload)
	if !hmac.Equal(mac.Sum(nil), sum) {
		return nil, false
	}
	return payload, true
}
