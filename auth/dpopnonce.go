package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// errUseDPoPNonce is the error of a proof without a current nonce of this
// server, when it issues them (RFC 9449 section 9): the middleware answers
// 401 with error="use_dpop_nonce" and a fresh nonce in DPoP-Nonce.
var errUseDPoPNonce = fmt.Errorf("%w: it must carry the nonce in this response's DPoP-Nonce header", ErrInvalidDPoPProof)

// dpopNonces issues and checks server nonces without keeping state: a nonce
// names a time window and carries a MAC of it, so every instance sharing
// the secret accepts every other's. A nonce is good for the window it was
// issued in and the next.
type dpopNonces struct {
	secret []byte
	window time.Duration
}

// newDPoPNonces returns nonces of window length, keyed by secret (a random
// key when nil).
func newDPoPNonces(window time.Duration, secret []byte) *dpopNonces {
	if secret == nil {
		secret = []byte(rand.Text())
	}
	return &dpopNonces{secret: secret, window: window}
}

// current returns the nonce to hand out at now.
func (n *dpopNonces) current(now time.Time) string {
	return n.nonce(now.UnixNano() / int64(n.window))
}

// nonce returns the nonce of window w.
func (n *dpopNonces) nonce(w int64) string {
	num := strconv.FormatInt(w, 36)
	mac := hmac.New(sha256.New, n.secret)
	mac.Write([]byte(num))
	return num + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:18])
}

// valid reports whether nonce was issued in the window of now or the one
// before.
func (n *dpopNonces) valid(nonce string, now time.Time) bool {
	num, _, ok := strings.Cut(nonce, ".")
	w, err := strconv.ParseInt(num, 36, 64)
	cur := now.UnixNano() / int64(n.window)
	if !ok || err != nil || (w != cur && w != cur-1) {
		return false
	}
	return hmac.Equal([]byte(nonce), []byte(n.nonce(w)))
}
