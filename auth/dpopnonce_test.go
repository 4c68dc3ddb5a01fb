package auth

import (
	"testing"
	"time"
)

// A nonce is good in the window it was issued in and the next, and only
// with the secret it was made with.
func TestDPoPNoncesExpireAfterTwoWindows(t *testing.T) {
	n := newDPoPNonces(time.Minute, []byte("secret"))
	issued := time.Date(2026, 11, 24, 12, 0, 30, 0, time.UTC)
	nonce := n.current(issued)
	for _, tc := range []struct {
		at   time.Duration
		want bool
	}{{0, true}, {29 * time.Second, true}, {30 * time.Second, true}, {89 * time.Second, true}, {90 * time.Second, false}, {-time.Minute, false}} {
		if got := n.valid(nonce, issued.Add(tc.at)); got != tc.want {
			t.Errorf("valid %v after issue = %v, want %v", tc.at, got, tc.want)
		}
	}
	if other := newDPoPNonces(time.Minute, []byte("other secret")); other.valid(nonce, issued) {
		t.Error("a nonce was accepted under another secret")
	}
	for _, forged := range []string{"", "x", nonce + "x", "zz." + nonce[len(nonce)-24:]} {
		if n.valid(forged, issued) {
			t.Errorf("forged nonce %q accepted", forged)
		}
	}
}
