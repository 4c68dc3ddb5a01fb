package oauthclient

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/auth"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// Token endpoint client authentication methods (RFC 7591, RFC 7523).
const (
	AuthNone              = "none"
	AuthClientSecretBasic = "client_secret_basic"
	AuthClientSecretPost  = "client_secret_post"
	AuthPrivateKeyJWT     = "private_key_jwt"
)

// ClientInfo is an OAuth client's registration at one authorization server.
type ClientInfo struct {
	// Issuer is the authorization server the registration belongs to. It
	// is never presented to another. In Config.Clients an empty Issuer
	// means the credentials are bound to the first authorization server
	// the client meets, and to no other afterwards.
	Issuer   string `json:"issuer"`
	ClientID string `json:"client_id"`
	// ClientSecret is the secret of a confidential client.
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is how the client authenticates at the token endpoint
	// (AuthNone, AuthClientSecretBasic, AuthClientSecretPost or
	// AuthPrivateKeyJWT). Empty means: private_key_jwt with a PrivateKey,
	// else a secret method the server supports with a ClientSecret, else
	// none.
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// PrivateKey signs private_key_jwt client assertions (RSA, ECDSA or
	// Ed25519); it is never stored. KeyID names it in the assertion's
	// header, and SigningAlgorithm overrides the algorithm derived from
	// the key (RS256, ES256/384/512, EdDSA).
	PrivateKey       crypto.Signer `json:"-"`
	KeyID            string        `json:"key_id,omitempty"`
	SigningAlgorithm string        `json:"signing_algorithm,omitempty"`
}

// withMethod returns a copy of ci whose AuthMethod is set, choosing one
// the authorization server supports when it is empty.
func (ci ClientInfo) withMethod(meta *auth.AuthorizationServerMetadata) ClientInfo {
	if ci.AuthMethod != "" {
		return ci
	}
	supported := meta.TokenEndpointAuthMethodsSupported
	switch {
	case ci.PrivateKey != nil:
		ci.AuthMethod = AuthPrivateKeyJWT
	case ci.ClientSecret == "":
		ci.AuthMethod = AuthNone
	// RFC 8414: an absent list means client_secret_basic.
	case len(supported) == 0 || slices.Contains(supported, AuthClientSecretBasic):
		ci.AuthMethod = AuthClientSecretBasic
	case slices.Contains(supported, AuthClientSecretPost):
		ci.AuthMethod = AuthClientSecretPost
	default:
		ci.AuthMethod = AuthNone
	}
	return ci
}

// clientFor returns the client registration to use at b's authorization
// server, in the order the MCP specification gives: pre-registered
// credentials, a client ID metadata document, a registration obtained
// earlier, dynamic client registration. For the JWT bearer grant without
// pre-registered credentials it returns nil: the token request is then not
// client-authenticated.
func (c *Client) clientFor(ctx context.Context, b *binding) (*ClientInfo, error) {
	if ci := c.preRegistered(b.issuer); ci != nil {
		r := ci.withMethod(b.meta)
		return &r, nil
	}
	switch c.cfg.Grant {
	case GrantClientCredentials:
		return nil, fmt.Errorf("%w at %s: the client credentials grant needs credentials for it in Config.Clients", ErrNoClient, b.issuer)
	case GrantJWTBearer:
		return nil, nil // the assertion identifies the client
	}
	if b.meta.ClientIDMetadataDocumentSupported && c.cfg.ClientIDMetadataURL != "" {
		return &ClientInfo{Issuer: b.issuer, ClientID: c.cfg.ClientIDMetadataURL, AuthMethod: AuthNone}, nil
	}
	stored, err := c.store.Client(ctx, b.issuer)
	if err != nil {
		return nil, fmt.Errorf("read the client registration for %s: %w", b.issuer, err)
	}
	if stored != nil && stored.Issuer == b.issuer {
		return stored, nil
	}
	if b.meta.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("%w at %s: it offers neither client ID metadata documents (or Config.ClientIDMetadataURL is empty) nor dynamic registration; put pre-registered credentials in Config.Clients",
			ErrNoClient, b.issuer)
	}
	ci, err := c.register(ctx, b)
	if err != nil {
		return nil, err
	}
	if err := c.store.SaveClient(ctx, b.issuer, ci); err != nil {
		return nil, fmt.Errorf("save the client registration for %s: %w", b.issuer, err)
	}
	return ci, nil
}

// preRegistered returns the configured credentials for issuer: those bound
// to it, else unbound ones not yet bound elsewhere (binding them now).
func (c *Client) preRegistered(issuer string) *ClientInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.cfg.Clients {
		if c.cfg.Clients[i].Issuer == issuer {
			return &c.cfg.Clients[i]
		}
	}
	for i := range c.cfg.Clients {
		ci := &c.cfg.Clients[i]
		if ci.Issuer != "" {
			continue
		}
		if bound, ok := c.boundTo[i]; ok && bound != issuer {
			continue
		}
		c.boundTo[i] = issuer
		r := *ci
		r.Issuer = issuer
		return &r
	}
	return nil
}

// clientMetadata is the client metadata of RFC 7591, sent for dynamic
// registration and published as a client ID metadata document.
type clientMetadata struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	ApplicationType         string   `json:"application_type,omitempty"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// metadata returns the client metadata for the authorization code grant.
func (c *Client) metadata(authMethod string) clientMetadata {
	redirect := c.cfg.Authorizer.RedirectURL()
	appType := c.cfg.ApplicationType
	if appType == "" {
		appType = "web"
		if u, err := url.Parse(redirect); err == nil && (u.Scheme != "https" || fetch.IsLoopbackHost(u.Hostname())) {
			appType = "native"
		}
	}
	return clientMetadata{
		ClientName:              c.cfg.ClientName,
		ClientURI:               c.cfg.ClientURI,
		RedirectURIs:            []string{redirect},
		ApplicationType:         appType,
		GrantTypes:              []string{GrantAuthorizationCode, "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: authMethod,
	}
}

// ClientIDMetadataDocument returns the JSON client ID metadata document to
// host at Config.ClientIDMetadataURL, describing this client as
// authorization servers that support such documents will read it. Its
// redirect URI is the Authorizer's, so a [Loopback] authorizer needs a fixed
// port for the document to stay valid.
func (c *Client) ClientIDMetadataDocument() ([]byte, error) {
	if c.cfg.ClientIDMetadataURL == "" || c.cfg.Authorizer == nil {
		return nil, errors.New("oauthclient: a client ID metadata document needs Config.ClientIDMetadataURL and Config.Authorizer")
	}
	m := c.metadata(AuthNone)
	m.ClientID = c.cfg.ClientIDMetadataURL
	return json.Marshal(m)
}

// registrationResponse is an RFC 7591 client information response.
type registrationResponse struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
}

// register performs dynamic client registration (RFC 7591) at b.
func (c *Client) register(ctx context.Context, b *binding) (*ClientInfo, error) {
	supported := b.meta.TokenEndpointAuthMethodsSupported
	method := AuthNone
	if len(supported) > 0 && !slices.Contains(supported, AuthNone) {
		method = AuthClientSecretBasic
		if !slices.Contains(supported, AuthClientSecretBasic) && slices.Contains(supported, AuthClientSecretPost) {
			method = AuthClientSecretPost
		}
	}
	body, err := json.Marshal(c.metadata(method))
	if err != nil {
		return nil, fmt.Errorf("encode client metadata: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.meta.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build registration request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("register at %s: %w", b.meta.RegistrationEndpoint, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("dynamic client registration failed (check the redirect URI and application type it accepts): %w",
			oauthErrorFrom(resp, "registration endpoint "+b.meta.RegistrationEndpoint))
	}
	var rr registrationResponse
	if err := fetch.Decode(resp, &rr); err != nil {
		return nil, err
	}
	if rr.ClientID == "" {
		return nil, fmt.Errorf("registration endpoint %s returned no client_id", b.meta.RegistrationEndpoint)
	}
	ci := ClientInfo{Issuer: b.issuer, ClientID: rr.ClientID, ClientSecret: rr.ClientSecret, AuthMethod: rr.TokenEndpointAuthMethod}
	ci = ci.withMethod(b.meta)
	if strings.HasPrefix(ci.AuthMethod, "client_secret_") && ci.ClientSecret == "" {
		return nil, fmt.Errorf("registration endpoint %s chose %s but issued no client_secret", b.meta.RegistrationEndpoint, ci.AuthMethod)
	}
	c.log.InfoContext(ctx, "oauth: registered client", "issuer", b.issuer, "client_id", ci.ClientID, "auth_method", ci.AuthMethod)
	return &ci, nil
}
