package oauthclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/weftmcp/weft/auth"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// Enterprise-managed authorization (SEP-990, the Identity Assertion
// Authorization Grant): the user signs in once, at the enterprise's
// identity provider. For each MCP server the client exchanges the user's
// identity assertion at the identity provider (RFC 8693 token exchange) for
// an Identity Assertion JWT Authorization Grant (ID-JAG) naming the MCP
// server's authorization server and resource, then presents the ID-JAG to
// that authorization server with the JWT bearer grant (RFC 7523). The
// enterprise decides, at its identity provider, which MCP servers the user
// may reach; no browser is involved.

// Token exchange and ID-JAG identifiers (RFC 8693, SEP-990).
const (
	GrantTokenExchange   = "urn:ietf:params:oauth:grant-type:token-exchange"
	TokenTypeIDJAG       = "urn:ietf:params:oauth:token-type:id-jag"
	TokenTypeIDToken     = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeSAML2       = "urn:ietf:params:oauth:token-type:saml2"
	TokenTypeAccessToken = "urn:ietf:params:oauth:token-type:access_token"
)

// IdentityProvider is the enterprise identity provider of enterprise-managed
// authorization. With Config.IdentityProvider set, the JWT bearer grant's
// assertion is an ID-JAG obtained from it for each authorization server.
type IdentityProvider struct {
	// Issuer is the identity provider's issuer identifier; with a
	// private_key_jwt Client it is the client assertion's audience.
	Issuer string
	// TokenEndpoint is where the token exchange is sent.
	TokenEndpoint string
	// Client is how the client authenticates at the identity provider (its
	// own registration there, not at the MCP authorization server).
	Client ClientInfo
	// SubjectToken returns the user's identity assertion to exchange: an
	// OpenID Connect ID token unless SubjectTokenType says otherwise.
	SubjectToken func(ctx context.Context) (string, error)
	// SubjectTokenType is the token type of SubjectToken's assertion; empty
	// means TokenTypeIDToken.
	SubjectTokenType string
}

// check reports what is missing from idp.
func (idp *IdentityProvider) check() error {
	switch {
	case idp.TokenEndpoint == "":
		return errors.New("oauthclient: Config.IdentityProvider needs the TokenEndpoint of the identity provider")
	case idp.SubjectToken == nil:
		return errors.New("oauthclient: Config.IdentityProvider needs SubjectToken, the user's identity assertion")
	case idp.Client.ClientID == "":
		return errors.New("oauthclient: Config.IdentityProvider needs Client.ClientID, the client's registration at the identity provider")
	}
	return nil
}

// idJAG exchanges the user's identity assertion at the identity provider
// for an ID-JAG for b's authorization server and resource, with scopes.
func (c *Client) idJAG(ctx context.Context, idp *IdentityProvider, b *binding, scopes []string) (string, error) {
	subject, err := idp.SubjectToken(ctx)
	if err != nil {
		return "", fmt.Errorf("get the identity assertion to exchange at the identity provider: %w", err)
	}
	subjectType := idp.SubjectTokenType
	if subjectType == "" {
		subjectType = TokenTypeIDToken
	}
	form := url.Values{
		"grant_type":           {GrantTokenExchange},
		"requested_token_type": {TokenTypeIDJAG},
		"audience":             {b.issuer},
		"resource":             {b.resource},
		"subject_token":        {subject},
		"subject_token_type":   {subjectType},
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	endpoint := "identity provider token endpoint " + idp.TokenEndpoint
	ci := idp.Client.withMethod(&auth.AuthorizationServerMetadata{})
	resp, err := c.postForm(ctx, idp.TokenEndpoint, form, &ci, &auth.AuthorizationServerMetadata{Issuer: idp.Issuer, TokenEndpoint: idp.TokenEndpoint}, "")
	if err != nil {
		return "", fmt.Errorf("token exchange: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", oauthErrorFrom(resp, endpoint)
	}
	var tr struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := fetch.Decode(resp, &tr); err != nil {
		return "", err
	}
	switch {
	case tr.AccessToken == "":
		return "", fmt.Errorf("%s returned no access_token (the ID-JAG)", endpoint)
	case tr.IssuedTokenType != TokenTypeIDJAG:
		return "", fmt.Errorf("%s issued a token of type %q, not an ID-JAG (%s); it may not support enterprise-managed authorization", endpoint, tr.IssuedTokenType, TokenTypeIDJAG)
	}
	return tr.AccessToken, nil
}
