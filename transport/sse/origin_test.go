package sse

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
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

// withOrigins adds Origin headers to r.
func withOrigins(r *http.Request, origins ...string) *http.Request {
	for _, o := range origins {
		r.Header.Add("Origin", o)
	}
	return r
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
		{"loopback, allowed host with a port", allow, arrivedOn("127.0.0.1:80", "mcp.example.com:8080", ""), true},
		{"loopback, host with a port only allowed on another", OriginPolicy{AllowedHosts: []string{"mcp.example.com:9090"}}, arrivedOn("127.0.0.1:80", "mcp.example.com:8080", ""), false},
		{"loopback, allowed host with its port", OriginPolicy{AllowedHosts: []string{"mcp.example.com:9090"}}, arrivedOn("127.0.0.1:80", "mcp.example.com:9090", ""), true},
		{"public address, any host", zero, arrivedOn("10.0.0.1:80", "mcp.example.com", ""), true},
		{"public address, foreign origin", zero, arrivedOn("10.0.0.1:80", "mcp.example.com", "https://elsewhere.example.com"), false},
		{"public address, origin of the host itself", zero, arrivedOn("10.0.0.1:80", "mcp.example.com", "http://mcp.example.com"), false},
		{"public address, null origin", zero, arrivedOn("10.0.0.1:80", "mcp.example.com", "null"), false},
		{"public address, local origin", zero, arrivedOn("10.0.0.1:80", "mcp.example.com", "http://localhost:6274"), true},
		{"public address, origin not allowed", allow, arrivedOn("10.0.0.1:80", "mcp.example.com", "https://elsewhere.example.com"), false},
		{"public address, allowed origin", allow, arrivedOn("10.0.0.1:80", "mcp.example.com", "HTTPS://app.example.com"), true},
		{"unknown address, foreign origin", zero, withOrigins(httptest.NewRequest("POST", "/mcp", nil), "http://evil.example.com"), false},
		{"public address, two origins", allow, withOrigins(arrivedOn("10.0.0.1:80", "mcp.example.com", "https://app.example.com"), "http://evil.example.com"), false},
		{"disabled", OriginPolicy{Disabled: true}, arrivedOn("127.0.0.1:80", "evil.example.com", "http://evil.example.com"), true},
	}
	for _, tt := range tests {
		if err := tt.policy.Check(tt.r); (err == nil) != tt.ok {
			t.Errorf("%s: Check = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

// onPublicAddress passes each request to next as if its connection had
// been accepted on 192.0.2.10:8080, an address that is not loopback, while
// the traffic stays on the loopback interface.
func onPublicAddress(next http.Handler) http.Handler {
	public := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 8080}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, public)))
	})
}

// wantForbidden fails the test unless resp is the 403 of a refused origin:
// a JSON-RPC error, and no CORS header the page could read it by.
func wantForbidden(t *testing.T, resp *http.Response) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("got %d (%s) %s, want 403 with a JSON-RPC error", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if msg, err := jsonrpc.DecodeMessage(body); err != nil || msg.(*jsonrpc.Response).Error == nil {
		t.Errorf("the body %s is not a JSON-RPC error (%v)", body, err)
	}
	for k := range resp.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("a refused origin got the CORS header %s", k)
		}
	}
}

// On a public address too, the HTTP+SSE transport refuses a page of a
// foreign origin, preflight included, and serves clients that send no
// Origin.
func TestServerRefusesForeignOriginsOnEveryInterface(t *testing.T) {
	h := NewHandler(&echoServer{}, nil)
	ts := httptest.NewServer(onPublicAddress(h))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.Close()
	})
	get := func(method, origin string) *http.Response {
		req, _ := http.NewRequest(method, ts.URL+"/sse", nil)
		req.Host = "mcp.example.com"
		if origin != "" {
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "GET")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	wantForbidden(t, get("GET", "http://evil.example"))
	wantForbidden(t, get("OPTIONS", "http://evil.example"))
	if resp := get("GET", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("a client without Origin got %d", resp.StatusCode)
	}
}

// Guard refuses a foreign origin before the handler behind it (say, the
// auth middleware, which would answer 401 readable by any page) sees it.
func TestGuardRefusesBeforeTheWrappedHandler(t *testing.T) {
	var reached []string
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.Header.Get("Origin"))
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusUnauthorized)
	})
	policy := OriginPolicy{AllowedOrigins: []string{"https://app.example.com"}}
	ts := httptest.NewServer(onPublicAddress(policy.Guard(next)))
	defer ts.Close()
	for _, origin := range []string{"http://evil.example", "https://app.example.com", ""} {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if origin == "http://evil.example" {
			wantForbidden(t, resp)
		} else if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("origin %q: %d, want the wrapped handler's 401", origin, resp.StatusCode)
		}
		resp.Body.Close()
	}
	if len(reached) != 2 || reached[0] != "https://app.example.com" || reached[1] != "" {
		t.Errorf("the wrapped handler saw the origins %q, want the allowed one and none", reached)
	}
}
