package sse

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/weftmcp/weft/auth"
)

func TestClientKey(t *testing.T) {
	tests := []struct{ remote, principal, want string }{
		{"203.0.113.7:5000", "", "address 203.0.113.7"},
		{"[::ffff:203.0.113.7]:5000", "", "address 203.0.113.7"},
		{"[2001:db8:1:2:aaaa::1]:5000", "", "address 2001:db8:1:2::/64"},
		{"[2001:db8:1:2:bbbb::9%eth0]:80", "", "address 2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:5000", "", "address 2001:db8:1:3::/64"},
		{"203.0.113.7:5000", "alice", `principal "https://as.example#sub:alice"`},
		{"pipe", "", "address pipe"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.RemoteAddr = tt.remote
		if tt.principal != "" {
			r = r.WithContext(auth.ContextWithTokenInfo(context.Background(), &auth.TokenInfo{Issuer: "https://as.example", Subject: tt.principal}))
		}
		if got := ClientKey(r); got != tt.want {
			t.Errorf("ClientKey(%s, principal %q) = %q, want %q", tt.remote, tt.principal, got, tt.want)
		}
	}
}
