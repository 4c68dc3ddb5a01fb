package auth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
)

func TestIntrospectionVerifier(t *testing.T) {
	const resource = "https://mcp.example.com/mcp"
	var issuer string
	responses := map[string]map[string]any{
		"good":         {"active": true, "sub": "bob", "client_id": "c1", "scope": "mcp:read", "aud": resource, "exp": time.Now().Add(time.Hour).Unix(), "ext": "x"},
		"inactive":     {"active": false},
		"other-aud":    {"active": true, "sub": "bob", "aud": []string{"https://elsewhere"}},
		"no-aud":       {"active": true, "sub": "bob"},
		"other-issuer": {"active": true, "sub": "bob", "aud": resource, "iss": "https://evil.example.com"},
		"expired":      {"active": true, "sub": "bob", "aud": resource, "exp": time.Now().Add(-time.Hour).Unix()},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok || id != "rs" || secret != "s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method != http.MethodPost || r.PostFormValue("token_type_hint") != "access_token" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		resp, ok := responses[r.PostFormValue("token")]
		if !ok {
			resp = map[string]any{"active": false}
		}
		if r.PostFormValue("token") == "good" {
			resp["iss"] = issuer
		}
		writeJSON(w, resp)
	}))
	defer srv.Close()
	issuer = srv.URL
	newV := func(secret string) *auth.IntrospectionVerifier {
		v, err := auth.NewIntrospectionVerifier(auth.IntrospectionOptions{
			Endpoint: srv.URL + "/introspect", ClientID: "rs", ClientSecret: secret,
			Issuer: issuer, Audience: resource, HTTPClient: srv.Client(),
		})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := newV("s3cret")
	ctx := context.Background()

	info, err := v.Verify(ctx, "good")
	if err != nil {
		t.Fatal(err)
	}
	if info.Principal() != issuer+"#sub:bob" || info.ClientID != "c1" || !slices.Equal(info.Scopes, []string{"mcp:read"}) ||
		info.Expiry.IsZero() || info.Claims["ext"] != "x" {
		t.Errorf("Verify(good) = %+v", info)
	}
	for _, tok := range []string{"inactive", "other-aud", "no-aud", "other-issuer", "expired", "unknown"} {
		if _, err := v.Verify(ctx, tok); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("Verify(%s) = %v, want ErrInvalidToken", tok, err)
		}
	}
	// Wrong credentials for the endpoint are our failure, not the token's.
	if _, err := newV("wrong").Verify(ctx, "good"); err == nil || errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("bad resource server credentials: %v, want a non-token error", err)
	}
}

// The issuer is checked as JWTOptions.Issuer is: an https URL, or http on
// loopback. Before, a typo such as "as.example.com" or a plain-http issuer
// was accepted, and tasks were bound to principals under that name.
func TestIntrospectionIssuerMustBeASecureURL(t *testing.T) {
	for _, issuer := range []string{"http://as.example.com", "as.example.com", "https://as.example.com#frag"} {
		_, err := auth.NewIntrospectionVerifier(auth.IntrospectionOptions{
			Endpoint: "https://as.example.com/introspect", ClientID: "rs",
			Issuer: issuer, Audience: "https://mcp.example.com/mcp",
		})
		if err == nil || !strings.Contains(err.Error(), "IntrospectionOptions.Issuer") {
			t.Errorf("Issuer %q: err = %v, want one naming IntrospectionOptions.Issuer", issuer, err)
		}
	}
	if _, err := auth.NewIntrospectionVerifier(auth.IntrospectionOptions{
		Endpoint: "https://as.example.com/introspect", ClientID: "rs",
		Issuer: "http://127.0.0.1:9000", Audience: "https://mcp.example.com/mcp",
	}); err != nil {
		t.Errorf("a loopback http issuer: %v", err)
	}
}
