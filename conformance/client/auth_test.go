package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth/oauthclient"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
)

func TestOAuthConfigTakesTheScenariosCredentials(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	ctxJSON := func(members map[string]string) []byte {
		b, err := json.Marshal(members)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	for _, c := range []struct {
		scenario string
		context  map[string]string
		grant    string
		client   *oauthclient.ClientInfo // the only pre-registered client, or nil for none
	}{
		{"auth/metadata-default", nil, "", nil},
		{"auth/pre-registration", map[string]string{"name": "auth/pre-registration", "client_id": "pre", "client_secret": "s3cret", "issuer": "http://localhost:1"},
			"", &oauthclient.ClientInfo{Issuer: "http://localhost:1", ClientID: "pre", ClientSecret: "s3cret"}},
		{"auth/client-credentials-basic", map[string]string{"client_id": "cc", "client_secret": "s3cret"},
			oauthclient.GrantClientCredentials, &oauthclient.ClientInfo{ClientID: "cc", ClientSecret: "s3cret"}},
		{"auth/client-credentials-jwt", map[string]string{"client_id": "cc", "private_key_pem": keyPEM, "signing_algorithm": "ES256"},
			oauthclient.GrantClientCredentials, &oauthclient.ClientInfo{ClientID: "cc", SigningAlgorithm: "ES256"}},
		{"auth/wif-jwt-bearer", map[string]string{"client_id": "workload", "valid_jwt": "a.b.c", "expired_jwt": "x.y.z"},
			oauthclient.GrantJWTBearer, &oauthclient.ClientInfo{ClientID: "workload"}},
	} {
		e := &env{scenario: c.scenario}
		if c.context != nil {
			e.context = ctxJSON(c.context)
		}
		cfg, err := oauthConfig(e)
		if err != nil {
			t.Errorf("%s: %v", c.scenario, err)
			continue
		}
		if cfg.Grant != c.grant || cfg.Authorizer == nil || cfg.ClientIDMetadataURL != clientMetadataURL {
			t.Errorf("%s: grant %q, authorizer %v, metadata URL %q; want grant %q, an authorizer and %q",
				c.scenario, cfg.Grant, cfg.Authorizer, cfg.ClientIDMetadataURL, c.grant, clientMetadataURL)
		}
		if _, err := oauthclient.New(cfg); err != nil {
			t.Errorf("%s: oauthclient.New refuses the configuration: %v", c.scenario, err)
		}
		switch {
		case c.client == nil && len(cfg.Clients) != 0:
			t.Errorf("%s: pre-registered clients %+v, want none", c.scenario, cfg.Clients)
		case c.client == nil:
		case len(cfg.Clients) != 1:
			t.Errorf("%s: pre-registered clients %+v, want one", c.scenario, cfg.Clients)
		default:
			got := cfg.Clients[0]
			if (got.PrivateKey != nil) != (c.context["private_key_pem"] != "") {
				t.Errorf("%s: private key %v, want one exactly when the context has private_key_pem", c.scenario, got.PrivateKey)
			}
			got.PrivateKey = nil
			if got != *c.client {
				t.Errorf("%s: pre-registered client %+v, want %+v", c.scenario, got, *c.client)
			}
		}
		if c.grant == oauthclient.GrantJWTBearer {
			if a, err := cfg.Assertion(context.Background()); err != nil || a != c.context["valid_jwt"] {
				t.Errorf("%s: assertion %q, %v; want valid_jwt %q", c.scenario, a, err, c.context["valid_jwt"])
			}
		}
	}
}

func TestOAuthConfigNamesWhatTheContextLacks(t *testing.T) {
	for _, c := range []struct{ scenario, context, want string }{
		{"auth/pre-registration", `{"client_id":"pre","issuer":"http://localhost:1"}`, "has no client_secret"},
		{"auth/client-credentials-jwt", `{"client_id":"cc","private_key_pem":"not a key","signing_algorithm":"ES256"}`, "no PEM block"},
		{"auth/wif-jwt-bearer", ``, "MCP_CONFORMANCE_CONTEXT"},
	} {
		_, err := oauthConfig(&env{scenario: c.scenario, context: []byte(c.context)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with context %s: error %v, want one containing %q", c.scenario, c.context, err, c.want)
		}
	}
}

// TestRefusalScenariosEndWithTheLibrarysRefusal plays an authorization
// scenario against an endpoint whose protected resource metadata is for
// another resource: the library refuses to authorize, which completes
// auth/resource-mismatch and fails any scenario that expects to get through.
func TestRefusalScenariosEndWithTheLibrarysRefusal(t *testing.T) {
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"resource":"https://elsewhere.example/mcp","authorization_servers":[%q]}`, ts.URL)
			return
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, ts.URL))
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer ts.Close()
	t.Setenv("MCP_CONFORMANCE_PROTOCOL_VERSION", mcp.Version20251125)
	t.Setenv("MCP_CONFORMANCE_CONTEXT", "")

	t.Setenv("MCP_CONFORMANCE_SCENARIO", "auth/resource-mismatch")
	if err := run([]string{ts.URL + "/mcp"}); err != nil {
		t.Errorf("auth/resource-mismatch, refused as it expects: %v", err)
	}
	t.Setenv("MCP_CONFORMANCE_SCENARIO", "auth/metadata-default")
	if err := run([]string{ts.URL + "/mcp"}); err == nil || !strings.Contains(err.Error(), oauthclient.ErrResourceMismatch.Error()) {
		t.Errorf("auth/metadata-default, refused: error %v, want the resource mismatch", err)
	}
}

func TestRefusalScenarioFailsWhenTheClientGoesThrough(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "mock", Version: "1"}, &server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	server.AddTool(srv, &mcp.Tool{Name: "test-tool", Description: "Answers"},
		func(context.Context, *server.Request, struct{}) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "ok"}}}, nil
		})
	h := streamable.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Shutdown(context.Background())
	t.Setenv("MCP_CONFORMANCE_PROTOCOL_VERSION", mcp.Version20251125)
	t.Setenv("MCP_CONFORMANCE_CONTEXT", "")

	// A server that asks for no authorization: the authorizing transport
	// sends the requests as they are.
	t.Setenv("MCP_CONFORMANCE_SCENARIO", "auth/metadata-default")
	if err := run([]string{ts.URL}); err != nil {
		t.Errorf("auth/metadata-default without authorization: %v", err)
	}
	t.Setenv("MCP_CONFORMANCE_SCENARIO", "auth/iss-wrong-issuer")
	if err := run([]string{ts.URL}); err == nil || !strings.Contains(err.Error(), "went through") {
		t.Errorf("auth/iss-wrong-issuer, not refused: error %v, want one saying the client went through", err)
	}
}
