package main

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth/oauthclient"
	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport/streamable"
)

// What the suite's example clients use: the mock authorization server
// redirects at once, so nothing listens at the redirect URI, and it
// accepts this URL as the client ID where it supports client ID metadata
// documents.
const (
	redirectURL       = "http://localhost:3000/callback"
	clientMetadataURL = "https://conformance-test.local/client-metadata.json"
)

// authContext is the MCP_CONFORMANCE_CONTEXT of the authorization
// scenarios that hand the client credentials.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	ValidJWT         string `json:"valid_jwt"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPIssuer        string `json:"idp_issuer"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
}

// refusals are the authorization scenarios whose mock leaves the client
// nothing to do but give up (the suite lets their client exit with an
// error), each with what the library must refuse. The mock's checks judge
// how it refused; the scenario's script ends when the session fails at
// the HTTP layer.
var refusals = map[string]string{
	"auth/resource-mismatch":        "protected resource metadata for another resource",
	"auth/metadata-issuer-mismatch": "authorization server metadata whose issuer is not the one it was fetched for",
	"auth/iss-supported-missing":    "an authorization response without the iss its server promised",
	"auth/iss-wrong-issuer":         "an authorization response whose iss names another issuer",
	"auth/iss-unexpected":           "an authorization response whose unannounced iss names another issuer",
	"auth/iss-normalized":           "an authorization response whose iss is its issuer with a trailing slash",
	"auth/scope-retry-limit":        "stepping up again to scopes it already asked for, when the server keeps answering 403 insufficient_scope",
}

// oauthConfig returns the OAuth client configuration of an authorization
// scenario: the authorization code grant with a headless authorizer and a
// client ID metadata document URL for every scenario, and the credentials
// or grant from the context for those that carry them.
func oauthConfig(e *env) (oauthclient.Config, error) {
	h, err := oauthclient.NewHeadless(redirectURL, nil)
	if err != nil {
		return oauthclient.Config{}, err
	}
	cfg := oauthclient.Config{Authorizer: h, ClientName: "weft-conformance", ClientIDMetadataURL: clientMetadataURL}
	var need []string // the context members the scenario needs
	switch e.scenario {
	case "auth/pre-registration":
		need = []string{"client_id", "client_secret", "issuer"}
	case "auth/client-credentials-basic":
		need = []string{"client_id", "client_secret"}
	case "auth/client-credentials-jwt":
		need = []string{"client_id", "private_key_pem", "signing_algorithm"}
	case "auth/wif-jwt-bearer":
		need = []string{"client_id", "valid_jwt"}
	case "auth/enterprise-managed-authorization":
		need = []string{"client_id", "client_secret", "idp_client_id", "idp_id_token", "idp_token_endpoint"}
	default:
		return cfg, nil
	}
	var ac authContext
	if err := json.Unmarshal(e.context, &ac); err != nil {
		return cfg, fmt.Errorf("MCP_CONFORMANCE_CONTEXT %q: %w", e.context, err)
	}
	have := map[string]string{"client_id": ac.ClientID, "client_secret": ac.ClientSecret, "issuer": ac.Issuer,
		"private_key_pem": ac.PrivateKeyPEM, "signing_algorithm": ac.SigningAlgorithm, "valid_jwt": ac.ValidJWT,
		"idp_client_id": ac.IdPClientID, "idp_id_token": ac.IdPIDToken, "idp_token_endpoint": ac.IdPTokenEndpoint}
	for _, n := range need {
		if have[n] == "" {
			return cfg, fmt.Errorf("MCP_CONFORMANCE_CONTEXT %q has no %s, which %s needs", e.context, n, e.scenario)
		}
	}
	switch e.scenario {
	case "auth/pre-registration":
		cfg.Clients = []oauthclient.ClientInfo{{Issuer: ac.Issuer, ClientID: ac.ClientID, ClientSecret: ac.ClientSecret}}
	case "auth/client-credentials-basic":
		cfg.Grant = oauthclient.GrantClientCredentials
		cfg.Clients = []oauthclient.ClientInfo{{ClientID: ac.ClientID, ClientSecret: ac.ClientSecret}}
	case "auth/client-credentials-jwt":
		key, err := oauthclient.ParsePrivateKeyPEM([]byte(ac.PrivateKeyPEM))
		if err != nil {
			return cfg, err
		}
		cfg.Grant = oauthclient.GrantClientCredentials
		cfg.Clients = []oauthclient.ClientInfo{{ClientID: ac.ClientID, PrivateKey: key, SigningAlgorithm: ac.SigningAlgorithm}}
	case "auth/wif-jwt-bearer":
		cfg.Grant = oauthclient.GrantJWTBearer
		cfg.Assertion = func(context.Context) (string, error) { return ac.ValidJWT, nil }
		cfg.Clients = []oauthclient.ClientInfo{{ClientID: ac.ClientID}}
	case "auth/enterprise-managed-authorization":
		cfg.Grant = oauthclient.GrantJWTBearer
		cfg.IdentityProvider = &oauthclient.IdentityProvider{
			Issuer:        ac.IdPIssuer,
			TokenEndpoint: ac.IdPTokenEndpoint,
			Client:        oauthclient.ClientInfo{ClientID: ac.IdPClientID},
			SubjectToken:  func(context.Context) (string, error) { return ac.IdPIDToken, nil },
		}
		cfg.Clients = []oauthclient.ClientInfo{{ClientID: ac.ClientID, ClientSecret: ac.ClientSecret}}
	}
	return cfg, nil
}

// playAuth authorizes with auth/oauthclient, then connects, lists the
// tools and calls test-tool, as every authorization scenario expects. In
// the scenarios of refusals, the session failing at the HTTP layer is the
// expected end, and going through is the failure.
func playAuth(ctx context.Context, e *env) error {
	cfg, err := oauthConfig(e)
	if err != nil {
		return err
	}
	oc, err := oauthclient.New(cfg)
	if err != nil {
		return err
	}
	e.httpClient = &http.Client{Transport: oc.Transport(nil)}
	err = withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		if _, err := listTools(ctx, s); err != nil {
			return err
		}
		_, err := callTool(ctx, s, "test-tool", stdjson.RawMessage(`{}`))
		return err
	})
	refusal, refuses := refusals[e.scenario]
	var je *jsonrpc.Error
	switch {
	case !refuses:
		return err
	case err == nil:
		return fmt.Errorf("the client went through, but %s expects it to refuse %s", e.scenario, refusal)
	case !errors.As(err, &je) || je.Code != streamable.CodeHTTPError:
		return fmt.Errorf("%s expects the client to refuse %s at the HTTP layer, but it failed otherwise: %w", e.scenario, refusal, err)
	}
	fmt.Fprintf(os.Stderr, "the client refused %s, as %s expects: %v\n", refusal, e.scenario, err)
	return nil
}
