package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/weftmcp/weft/auth"
)

// newClientCertificate returns a self-signed client certificate and its
// RFC 8705 x5t#S256 thumbprint.
func newClientCertificate(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "client"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, base64.RawURLEncoding.EncodeToString(sum[:])
}

// A token bound to a client certificate (RFC 8705) is accepted only over a
// TLS connection on which the client presented that certificate; before,
// its binding was ignored and anyone holding it could use it as a bearer
// token.
func TestCertificateBoundTokenNeedsItsCertificate(t *testing.T) {
	is := newTestIssuer(t)
	var v auth.Verifier
	srv := httptest.NewUnstartedServer(nil)
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"
	rs, err := auth.New(auth.Config{
		Resource:             resource,
		AuthorizationServers: []string{is.issuer},
		Verifier: auth.VerifierFunc(func(ctx context.Context, token string) (*auth.TokenInfo, error) {
			return v.Verify(ctx, token)
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = rs.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, seenRequest{Principal: auth.PrincipalFrom(r.Context())})
	}))
	v, err = auth.NewJWTVerifier(auth.JWTOptions{Issuer: is.issuer, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}

	cert, thumb := newClientCertificate(t)
	other, _ := newClientCertificate(t)
	token := is.token(t, signingKey{kid: "rsa-1", alg: jose.RS256, priv: rsaKey()}, resource,
		map[string]any{"cnf": map[string]string{"x5t#S256": thumb}})
	post := func(t *testing.T, certs ...tls.Certificate) *http.Response {
		t.Helper()
		tr := srv.Client().Transport.(*http.Transport).Clone()
		tr.TLSClientConfig.Certificates = certs
		hc := &http.Client{Transport: tr}
		t.Cleanup(hc.CloseIdleConnections)
		req, err := http.NewRequest(http.MethodPost, resource, strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}

	t.Run("with its certificate", func(t *testing.T) {
		if got := decodeSeen(t, post(t, cert)); got.Principal != is.issuer+"#sub:alice" {
			t.Errorf("principal %q, want alice at the issuer", got.Principal)
		}
	})
	t.Run("without a certificate", func(t *testing.T) {
		wantInvalidToken(t, post(t), "bound to a client certificate")
	})
	t.Run("with another certificate", func(t *testing.T) {
		wantInvalidToken(t, post(t, other), "another client certificate")
	})
}

// An introspection response's cnf."x5t#S256" binds the token as a JWT's
// does.
func TestIntrospectionReadsTheCertificateBinding(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"active": true, "sub": "bob", "aud": "https://mcp.example.com/mcp",
			"cnf": map[string]string{"x5t#S256": "thumb"}})
	}))
	t.Cleanup(srv.Close)
	v, err := auth.NewIntrospectionVerifier(auth.IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs",
		Issuer: "https://as.example.com", Audience: "https://mcp.example.com/mcp", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	info, err := v.Verify(context.Background(), "opaque")
	if err != nil {
		t.Fatal(err)
	}
	if info.CertificateThumbprint != "thumb" {
		t.Errorf("CertificateThumbprint %q, want the response's cnf.x5t#S256", info.CertificateThumbprint)
	}
}
