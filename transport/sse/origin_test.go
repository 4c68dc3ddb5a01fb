package sse

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// arrivedOn returns a request as if accepted on local address addr.
func arrivedOn(addr, host, origin string) *http.Request {
	r := httptest.NewRequest("POST", "http://"+host+"/mcp", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	tcp, _ := net.ResolveTCPAddr("tcp", addr)
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tcp))
}

func TestOriginPolicy(t *testing.T) {
	var zero OriginPolicy
	allow := OriginPolicy{AllowedHosts: []string{"mcp.example.com"}, AllowedOrigins: []string{"https://app.example.com"}}
	tests := []struct {
		name   string
		policy OriginPolicy
		r      *http.Request
		ok     bool
	}{
		{"loopback, localhost", zero, arrivedOn("127.0.0.1:80", "localhost:8080", ""), true},
		{"loopback, IPv4 host", zero, arrivedOn("127.0.0.1:80", "127.0.0.1:8080", "http://127.0.0.1:3000"), true},
		{"loopback, IPv6 host", zero, arrivedOn("[::1]:80", "[::1]:8080", "http://[::1]:3000"), true},
		{"loopback, foreign host", zero, arrivedOn("127.0.0.1:80", "evil.example.com", ""), false},
		{"loopback, foreign origin", zero, arrivedOn("127.0.0.1:80", "localhost", "http://evil.example.com"), false},
		{"loopback, null origin", zero, arrivedOn("127.0.0.1:80", "localhost", "null"), false},
		{"loopback, allowed host and origin", allow, arrivedOn("127.0.0.1:80", "MCP.example.com", "https://app.example.com"), true},
		{"public address, any host", zero, arrivedOn("10.0.0.1:80", "mcp.example.com", "https://elsewhere.example.com"), true},
		{"public address, origin not allowed", allow, arrivedOn("10.0.0.1:80", "mcp.example.com", "https://elsewhere.example.com"), false},
		{"public address, allowed origin", allow, arrivedOn("10.0.0.1:80", "mcp.example.com", "https://app.example.com"), true},
		{"disabled", OriginPolicy{Disabled: true}, arrivedOn("127.0.0.1:80", "evil.example.com", "http://evil.example.com"), true},
	}
	for _, tt := range tests {
		if err := tt.policy.Check(tt.r); (err == nil) != tt.ok {
			t.Errorf("%s: Check = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
