package oauthclient_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/auth/oauthclient"
)

func pemOf(t *testing.T, typ string, der []byte, err error) []byte {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func TestClientCredentials(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecDER, err := x509.MarshalPKCS8PrivateKey(ec)
	ecPEM := pemOf(t, "PRIVATE KEY", ecDER, err)
	rsaPEM := pemOf(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(asKey()), nil)

	for _, tc := range []struct {
		method  string
		secret  string
		keyPEM  []byte
		pub     crypto.PublicKey
		methods []string
	}{
		{"client_secret_basic", "s3cret", nil, nil, []string{"client_secret_basic"}},
		{"client_secret_post", "s3cret", nil, nil, []string{"client_secret_post"}},
		{"private_key_jwt", "", ecPEM, ec.Public(), []string{"private_key_jwt"}},
		{"private_key_jwt", "", rsaPEM, asKey().Public(), []string{"private_key_jwt"}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			const id = "conformance-test-client"
			as := newTestAS(t, asOptions{noDCR: true, authMethods: tc.methods,
				preRegistered: []*asClient{{id: id, secret: tc.secret, method: tc.method, key: tc.pub}}})
			ms := newMCPServer(t, as, auth.Config{Scopes: []string{"mcp:read"}})
			ci := oauthclient.ClientInfo{ClientID: id, ClientSecret: tc.secret} // unbound: no issuer
			if tc.keyPEM != nil {
				if ci.PrivateKey, err = oauthclient.ParsePrivateKeyPEM(tc.keyPEM); err != nil {
					t.Fatal(err)
				}
			}
			c := newClient(t, oauthclient.Config{Grant: oauthclient.GrantClientCredentials, Clients: []oauthclient.ClientInfo{ci}})
			r := mustReply(t, c, ms.url)
			if want := as.issuer + "#sub:" + id; r.Principal != want {
				t.Errorf("principal = %q, want %q", r.Principal, want)
			}
			toks := as.tokens()
			if len(toks) != 1 || toks[0].grant != "client_credentials" || toks[0].method != tc.method || toks[0].form.Get("scope") != "mcp:read" {
				t.Errorf("token requests = %+v", toks)
			}
			if len(as.auths()) != 0 {
				t.Error("the client credentials grant involved the authorization endpoint")
			}

			// The unbound credentials are now bound to this issuer: another
			// authorization server never sees them.
			other := newTestAS(t, asOptions{authMethods: tc.methods})
			ms2 := newMCPServer(t, other, auth.Config{})
			mustFail(t, c, ms2.url, oauthclient.ErrNoClient)
			if n := len(other.tokens()); n != 0 {
				t.Errorf("credentials bound to %s were presented to another server", as.issuer)
			}
		})
	}
}

func TestJWTBearer(t *testing.T) {
	as := newTestAS(t, asOptions{noDCR: true, assertion: "workload-jwt"})
	ms := newMCPServer(t, as, auth.Config{})
	assertion := "workload-jwt"
	c := newClient(t, oauthclient.Config{Grant: oauthclient.GrantJWTBearer, Assertion: func(context.Context) (string, error) { return assertion, nil }})
	if r := mustReply(t, c, ms.url); r.Principal != as.issuer+"#sub:workload" {
		t.Errorf("principal = %q", r.Principal)
	}

	// A refused assertion is reported once, not retried with another grant.
	as2 := newTestAS(t, asOptions{noDCR: true, assertion: "workload-jwt"})
	ms2 := newMCPServer(t, as2, auth.Config{})
	assertion = "expired-jwt"
	_, err := post(t, c, ms2.url, `{}`)
	var oe *oauthclient.OAuthError
	if !errors.As(err, &oe) || oe.Code != "invalid_grant" {
		t.Fatalf("refused assertion: %v, want an OAuthError invalid_grant", err)
	}
	if toks := as2.tokens(); len(toks) != 1 || toks[0].grant != oauthclient.GrantJWTBearer {
		t.Errorf("token requests = %+v, want exactly one JWT bearer request", toks)
	}
}

func TestParsePrivateKeyPEM_Rejects(t *testing.T) {
	for name, in := range map[string][]byte{
		"not PEM":    []byte("hello"),
		"public key": pemOf(t, "PUBLIC KEY", []byte{1, 2, 3}, nil),
		"garbage":    pemOf(t, "PRIVATE KEY", []byte{1, 2, 3}, nil),
	} {
		if _, err := oauthclient.ParsePrivateKeyPEM(in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
