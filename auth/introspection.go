package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// IntrospectionOptions configures [NewIntrospectionVerifier].
type IntrospectionOptions struct {
	// Endpoint is the authorization server's RFC 7662 introspection
	// endpoint. Required.
	Endpoint string
	// ClientID and ClientSecret authenticate the resource server to the
	// endpoint with HTTP Basic (client_secret_basic). Required.
	ClientID     string
	ClientSecret string
	// Issuer is the authorization server's issuer identifier. A response
	// naming another issuer is rejected; a response naming none is taken to
	// come from Issuer. Required.
	Issuer string
	// Audience is the resource tokens must name in "aud": the MCP endpoint's
	// canonical URL. A response without "aud" is rejected, since MCP servers
	// must only accept tokens issued for them. Required.
	Audience string
	// HTTPClient calls the endpoint; nil means a client with a 10-second
	// timeout.
	HTTPClient *http.Client
}

// IntrospectionVerifier verifies opaque tokens by asking the authorization
// server (RFC 7662 token introspection) on every request. It is a
// [Verifier]; wrap it in a [CachingVerifier] to ask less often.
type IntrospectionVerifier struct {
	opts IntrospectionOptions
	hc   *http.Client
}

// NewIntrospectionVerifier returns a verifier that calls an introspection
// endpoint.
func NewIntrospectionVerifier(opts IntrospectionOptions) (*IntrospectionVerifier, error) {
	if err := fetch.CheckSecureURL("auth: IntrospectionOptions.Endpoint", opts.Endpoint); err != nil {
		return nil, err
	}
	if opts.ClientID == "" || opts.Issuer == "" || opts.Audience == "" {
		return nil, errors.New("auth: IntrospectionOptions needs ClientID, Issuer and Audience")
	}
	if err := fetch.CheckSecureURL("auth: IntrospectionOptions.Issuer", opts.Issuer); err != nil {
		return nil, err
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: jwksFetchTimout}
	}
	return &IntrospectionVerifier{opts: opts, hc: hc}, nil
}

// introspection is an RFC 7662 response.
type introspection struct {
	Active    bool       `json:"active"`
	Scope     string     `json:"scope"`
	ClientID  string     `json:"client_id"`
	Subject   string     `json:"sub"`
	Audience  stringList `json:"aud"`
	Issuer    string     `json:"iss"`
	Expiry    *float64   `json:"exp"`
	NotBefore *float64   `json:"nbf"`
	Cnf       *cnfClaim  `json:"cnf"`
}

// Verify asks the introspection endpoint about token.
func (v *IntrospectionVerifier) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.opts.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("build introspection request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(v.opts.ClientID), url.QueryEscape(v.opts.ClientSecret))
	resp, err := v.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("call the introspection endpoint: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the introspection endpoint %s answered HTTP %d; check the resource server's client credentials",
			v.opts.Endpoint, resp.StatusCode)
	}
	var raw jsontext.Value
	if err := fetch.Decode(resp, &raw); err != nil {
		return nil, err
	}
	var in introspection
	var all map[string]any
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("introspection response from %s: %w", v.opts.Endpoint, err)
	}
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, fmt.Errorf("introspection response from %s: %w", v.opts.Endpoint, err)
	}
	info, err := v.check(&in, time.Now())
	if err != nil {
		return nil, err
	}
	info.Claims = all
	return info, nil
}

// check turns an introspection response into token info.
func (v *IntrospectionVerifier) check(in *introspection, now time.Time) (*TokenInfo, error) {
	if !in.Active {
		return nil, invalidf("the authorization server says the token is not active")
	}
	if in.Issuer != "" && in.Issuer != v.opts.Issuer {
		return nil, invalidf("the token was issued by %q, not %q", in.Issuer, v.opts.Issuer)
	}
	if !slices.Contains(in.Audience, v.opts.Audience) {
		return nil, invalidf("the token is not meant for %s (its audience is %q)", v.opts.Audience, []string(in.Audience))
	}
	info := &TokenInfo{
		Issuer:   v.opts.Issuer,
		Subject:  in.Subject,
		ClientID: in.ClientID,
		Scopes:   strings.Fields(in.Scope),
		Audience: in.Audience,

		Confirmation:          in.Cnf.jkt(),
		CertificateThumbprint: in.Cnf.x5t(),
	}
	if in.Expiry != nil {
		info.Expiry = unixTime(*in.Expiry)
		if !now.Before(info.Expiry.Add(DefaultLeeway)) {
			return nil, invalidf("the token expired at %s", info.Expiry.UTC().Format(time.RFC3339))
		}
	}
	if in.NotBefore != nil {
		if nbf := unixTime(*in.NotBefore); now.Add(DefaultLeeway).Before(nbf) {
			return nil, invalidf("the token is not valid before %s", nbf.UTC().Format(time.RFC3339))
		}
	}
	return info, nil
}
