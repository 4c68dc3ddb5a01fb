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
// During a key rotation the previous server keys still open tokens.
type sealer struct {
	key      []byte   // signs and opens
	previous [][]byte // only open
}

// newSealer derives the sealer for purpose from the server key and the
// previous server keys.
func newSealer(serverKey []byte, previous [][]byte, purpose string) sealer {
	s := sealer{key: derive(serverKey, purpose)}
	for _, k := range previous {
		s.previous = append(s.previous, derive(k, purpose))
	}
	return s
}

// derive returns the key for purpose from a server key.
func derive(serverKey []byte, purpose string) []byte {
	mac := hmac.New(sha256.New, serverKey)
	mac.Write([]byte("weft/server/" + purpose))
	return mac.Sum(nil)
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
	if signed(s.key, payload, sum) {
		return payload, true
	}
	for _, k := range s.previous {
		if signed(k, payload, sum) {
			return payload, true
		}
	}
	return nil, false
}

// signed reports whether sum is the HMAC of payload under key.
func signed(key, payload, sum []byte) bool {
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	return hmac.Equal(mac.Sum(nil), sum)
}
