package cli

import (
	"crypto/ecdsa"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestDPoPKeyIsMadeOnceAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "weft", "dpop-key.pem")
	first, err := dpopKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, %v; want mode 0600", info, err)
	}
	again, err := dpopKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Public().(*ecdsa.PublicKey).Equal(again.Public()) {
		t.Error("the second run read another key than the first made")
	}
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := dpopKey(path); err == nil {
		t.Error("a damaged key file was accepted")
	}
}

func TestOAuthChallenge(t *testing.T) {
	for v, want := range map[string]bool{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`: true,
		`DPoP algs="ES256"`:   true,
		`bearer`:              true,
		`Basic realm="admin"`: false,
		`Negotiate abc`:       false,
		``:                    false,
	} {
		h := http.Header{}
		if v != "" {
			h.Set("WWW-Authenticate", v)
		}
		if got := oauthChallenge(h); got != want {
			t.Errorf("oauthChallenge(%q) = %v, want %v", v, got, want)
		}
	}
}
