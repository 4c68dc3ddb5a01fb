package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// csrfLabel names what the CSRF token is derived for, so that the token
// is no value the key yields anywhere else.
const csrfLabel = "weft console CSRF token"

// csrfToken returns the token every action must carry: derived from key
// when one is given (the same on every console sharing it), else random.
func csrfToken(key []byte) string {
	if len(key) == 0 {
		return rand.Text()
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(csrfLabel))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}
