package oauthclient

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/auth"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// Token is an access token and what came with it.
type Token struct {
	AccessToken string `json:"access_token"`
	// TokenType is TokenTypeBearer, or TokenTypeDPoP for a token bound to
	// the client's DPoP key, which is presented with a DPoP proof; other
	// types are refused when issued.
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token,omitempty"`
	// Expiry is when the access token expires; zero when the authorization
	// server did not say.
	Expiry time.Time `json:"expiry,omitzero"`
	// Scopes are the scopes granted: those the authorization server named,
	// or those requested when it named none (RFC 6749 section 5.1).
	Scopes []string `json:"scopes,omitempty"`
}

// expirySkew is how long before its expiry a token is treated as expired,
// so that it does not expire in flight.
const expirySkew = 30 * time.Second

// expired reports whether t should no longer be sent at now.
func (t *Token) expired(now time.Time) bool {
	return !t.Expiry.IsZero() && !now.Add(expirySkew).Before(t.Expiry)
}

// tokenResponse is a successful token endpoint response (RFC 6749 5.1).
type tokenResponse struct {
	AccessToken  string         `json:"access_token"`
	TokenType    string         `json:"token_type"`
	ExpiresIn    jsontext.Value `json:"expires_in"`
	RefreshToken string         `json:"refresh_token"`
	Scope        *string        `json:"scope"`
}

// oauthErrorBody is an error response body (RFC 6749 section 5.2).
type oauthErrorBody struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// requestToken POSTs form to the token endpoint of b, authenticated as ci
// (not at all when ci is nil), and returns the token. requested are the
// scopes asked for, which the token is granted when the response names
// none. When b's authorization server issues DPoP-bound tokens, the request
// carries a DPoP proof, and is sent again once with the nonce the server
// asks for (use_dpop_nonce, RFC 9449 section 8).
func (c *Client) requestToken(ctx context.Context, b *binding, ci *ClientInfo, form url.Values, requested []string) (*Token, error) {
	endpoint, err := url.Parse(b.meta.TokenEndpoint)
	if err != nil {
		return nil, fmt.Errorf("token endpoint of %s: %w", b.issuer, err)
	}
	dp := c.dpopFor(b)
	for retried := false; ; retried = true {
		resp, err := c.postToken(ctx, b, ci, form, endpoint, dp)
		if err != nil {
			return nil, err
		}
		if dp != nil {
			dp.noteNonce(endpoint, resp.Header)
		}
		if resp.StatusCode == http.StatusOK {
			defer resp.Body.Close()
			return c.readToken(resp, b, dp != nil, requested)
		}
		err = oauthErrorFrom(resp, "token endpoint "+b.meta.TokenEndpoint)
		resp.Body.Close()
		var oe *OAuthError
		if dp != nil && !retried && errors.As(err, &oe) && oe.Code == errorUseDPoPNonce && dp.nonce(endpoint) != "" {
			continue
		}
		return nil, err
	}
}

// postToken sends one token request, with a fresh DPoP proof when dp is
// set.
func (c *Client) postToken(ctx context.Context, b *binding, ci *ClientInfo, form url.Values, endpoint *url.URL, dp *dpopProver) (*http.Response, error) {
	var proof string
	if dp != nil {
		var err error
		if proof, err = dp.proof(http.MethodPost, endpoint, "", c.now()); err != nil {
			return nil, err
		}
	}
	return c.postForm(ctx, endpoint.String(), form, ci, b.meta, proof)
}

// postForm POSTs form to the token endpoint of the server meta describes,
// authenticated as ci (not at all when ci is nil), with a DPoP proof
// unless proof is empty.
func (c *Client) postForm(ctx context.Context, endpoint string, form url.Values, ci *ClientInfo, meta *auth.AuthorizationServerMetadata, proof string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("build the request to %s: %w", endpoint, err)
	}
	if err := c.authenticateClient(req, form, ci, meta); err != nil {
		return nil, err
	}
	if proof != "" {
		req.Header.Set(headerDPoP, proof)
	}
	body := form.Encode()
	req.Body = io.NopCloser(strings.NewReader(body))
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("request to %s: %w", endpoint, err)
	}
	return resp, nil
}

// readToken reads a successful token response. A DPoP-bound token is
// accepted only when the request carried a proof (bound); a server that
// answers a proof with a Bearer token (RFC 9449 section 5 allows it) gets
// it used as one.
func (c *Client) readToken(resp *http.Response, b *binding, bound bool, requested []string) (*Token, error) {
	var tr tokenResponse
	if err := fetch.Decode(resp, &tr); err != nil {
		return nil, err
	}
	if tr.AccessToken == "" {
		return nil, fmt.Errorf("token endpoint %s returned no access_token", b.meta.TokenEndpoint)
	}
	var typ string
	switch {
	case strings.EqualFold(tr.TokenType, TokenTypeBearer):
		typ = TokenTypeBearer
	case bound && strings.EqualFold(tr.TokenType, TokenTypeDPoP):
		typ = TokenTypeDPoP
	default:
		return nil, fmt.Errorf("token endpoint %s issued a %q token, which this client cannot present; it uses Bearer tokens and, with DPoP enabled, DPoP-bound ones", b.meta.TokenEndpoint, tr.TokenType)
	}
	t := &Token{AccessToken: tr.AccessToken, TokenType: typ, RefreshToken: tr.RefreshToken, Scopes: requested}
	if tr.Scope != nil {
		t.Scopes = strings.Fields(*tr.Scope)
	}
	if secs, ok := expiresIn(tr.ExpiresIn); ok {
		t.Expiry = c.now().Add(time.Duration(secs) * time.Second)
	}
	return t, nil
}

// expiresIn reads expires_in, which some servers send as a string.
func expiresIn(raw jsontext.Value) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var n int64
	if json.Unmarshal(raw, &n) == nil && n > 0 {
		return n, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if _, err := fmt.Sscan(s, &n); err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}

// oauthErrorFrom turns a failed response into an *OAuthError, or a plain
// error when the body is not an OAuth error.
func oauthErrorFrom(resp *http.Response, endpoint string) error {
	var e oauthErrorBody
	if err := fetch.Decode(resp, &e); err != nil || e.Error == "" {
		return fmt.Errorf("%s answered HTTP %d without an OAuth error", endpoint, resp.StatusCode)
	}
	return &OAuthError{Endpoint: endpoint, StatusCode: resp.StatusCode, Code: e.Error, Description: e.ErrorDescription}
}

// authenticateClient adds ci's credentials to a token request by its
// method.
func (c *Client) authenticateClient(req *http.Request, form url.Values, ci *ClientInfo, meta *auth.AuthorizationServerMetadata) error {
	if ci == nil {
		return nil
	}
	switch ci.AuthMethod {
	case AuthNone:
		form.Set("client_id", ci.ClientID)
	case AuthClientSecretBasic:
		// RFC 6749 section 2.3.1: both parts form-encoded first.
		cred := url.QueryEscape(ci.ClientID) + ":" + url.QueryEscape(ci.ClientSecret)
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cred)))
	case AuthClientSecretPost:
		form.Set("client_id", ci.ClientID)
		form.Set("client_secret", ci.ClientSecret)
	case AuthPrivateKeyJWT:
		assertion, err := clientAssertion(ci, meta.Issuer, c.now())
		if err != nil {
			return err
		}
		form.Set("client_id", ci.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		return fmt.Errorf("client %q has token endpoint auth method %q, which this client does not support", ci.ClientID, ci.AuthMethod)
	}
	return nil
}
