package oauthclient

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// authorizationCode runs the authorization code grant with PKCE (S256), the
// resource indicator, and the state and RFC 9207 iss checks.
func (c *Client) authorizationCode(ctx context.Context, b *binding, scopes []string) (*Token, error) {
	if !b.defaults && !slices.Contains(b.meta.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("%w: %s lists code_challenge_methods_supported %q; refusing to authorize without PKCE",
			ErrPKCEUnsupported, b.issuer, b.meta.CodeChallengeMethodsSupported)
	}
	if b.meta.AuthorizationEndpoint == "" || b.meta.TokenEndpoint == "" {
		return nil, fmt.Errorf("the metadata of %s lacks an authorization or token endpoint", b.issuer)
	}
	ci, err := c.clientFor(ctx, b)
	if err != nil {
		return nil, err
	}
	verifier, state := randomString(), randomString()
	redirect := c.cfg.Authorizer.RedirectURL()
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {ci.ClientID},
		"redirect_uri":          {redirect},
		"state":                 {state},
		"code_challenge":        {s256(verifier)},
		"code_challenge_method": {"S256"},
		"resource":              {b.resource},
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	authURL, err := url.Parse(b.meta.AuthorizationEndpoint)
	if err != nil {
		return nil, fmt.Errorf("authorization endpoint of %s: %w", b.issuer, err)
	}
	merged := authURL.Query()
	for k, v := range q {
		merged[k] = v
	}
	authURL.RawQuery = merged.Encode()

	resp, err := c.cfg.Authorizer.Authorize(ctx, authURL.String())
	if err != nil {
		return nil, err
	}
	if err := checkIssuer(resp, b.meta.Issuer, b.meta.AuthorizationResponseIssParameterSupported); err != nil {
		return nil, err
	}
	if resp.Get("state") != state {
		return nil, fmt.Errorf("%w; discarding the response", ErrStateMismatch)
	}
	if e := resp.Get("error"); e != "" {
		return nil, &OAuthError{Endpoint: "authorization server " + b.issuer, Code: e, Description: resp.Get("error_description")}
	}
	code := resp.Get("code")
	if code == "" {
		return nil, fmt.Errorf("the authorization response from %s has neither a code nor an error", b.issuer)
	}
	form := url.Values{
		"grant_type":    {GrantAuthorizationCode},
		"code":          {code},
		"redirect_uri":  {redirect},
		"code_verifier": {verifier},
		"resource":      {b.resource},
	}
	return c.requestToken(ctx, b, ci, form, scopes)
}

// checkIssuer applies RFC 9207 section 2.4 as MCP requires: a present iss
// must equal the recorded issuer by simple string comparison (no
// normalization), and an absent iss is only acceptable when the server does
// not promise one. The response's other parameters, error ones included,
// are not acted on when this fails.
func checkIssuer(resp url.Values, issuer string, promised bool) error {
	switch got, present := resp["iss"]; {
	case present && (len(got) != 1 || got[0] != issuer):
		return fmt.Errorf("%w: the response names issuer %q, but the request went to %q; discarding it", ErrResponseIssuerMismatch, got, issuer)
	case !present && promised:
		return fmt.Errorf("%w: %s promises an iss parameter (authorization_response_iss_parameter_supported) but the response has none; discarding it", ErrResponseIssuerMismatch, issuer)
	}
	return nil
}

// clientCredentials runs the client credentials grant with the
// pre-registered credentials for b's authorization server.
func (c *Client) clientCredentials(ctx context.Context, b *binding, scopes []string) (*Token, error) {
	ci, err := c.clientFor(ctx, b)
	if err != nil {
		return nil, err
	}
	if ci.AuthMethod == AuthNone {
		return nil, fmt.Errorf("the client credentials grant needs a client secret or private key for %q", ci.ClientID)
	}
	form := url.Values{"grant_type": {GrantClientCredentials}, "resource": {b.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	return c.requestToken(ctx, b, ci, form, scopes)
}

// jwtBearer exchanges an assertion for a token (RFC 7523 section 2.1): an
// ID-JAG from Config.IdentityProvider, or what Config.Assertion returns. A
// refused assertion is reported, not retried.
func (c *Client) jwtBearer(ctx context.Context, b *binding, scopes []string) (*Token, error) {
	var assertion string
	var err error
	if idp := c.cfg.IdentityProvider; idp != nil {
		assertion, err = c.idJAG(ctx, idp, b, scopes)
	} else if assertion, err = c.cfg.Assertion(ctx); err != nil {
		err = fmt.Errorf("get the assertion for the JWT bearer grant: %w", err)
	}
	if err != nil {
		return nil, err
	}
	ci, err := c.clientFor(ctx, b)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {GrantJWTBearer}, "assertion": {assertion}, "resource": {b.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	return c.requestToken(ctx, b, ci, form, scopes)
}

// refresh redeems t's refresh token and saves the new token. A response
// without a refresh token keeps the old one, and one without scopes keeps
// the old scopes.
func (c *Client) refresh(ctx context.Context, b *binding, t *Token) (*Token, error) {
	ci, err := c.clientFor(ctx, b)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken}, "resource": {b.resource}}
	nt, err := c.requestToken(ctx, b, ci, form, t.Scopes)
	if err != nil {
		_ = c.store.DeleteToken(ctx, b.issuer, b.resource)
		return nil, err
	}
	if nt.RefreshToken == "" {
		nt.RefreshToken = t.RefreshToken
	}
	if err := c.store.SaveToken(ctx, b.issuer, b.resource, nt); err != nil {
		return nil, fmt.Errorf("save the refreshed token for %s: %w", b.resource, err)
	}
	c.log.DebugContext(ctx, "oauth: refreshed token", "issuer", b.issuer, "resource", b.resource)
	return nt, nil
}
