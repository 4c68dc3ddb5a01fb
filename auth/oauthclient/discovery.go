package oauthclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/weftmcp/weft/auth"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// binding is what discovery learned about an MCP endpoint: the authorization
// server to use and the resource identifier tokens are requested for.
type binding struct {
	issuer   string
	resource string
	meta     *auth.AuthorizationServerMetadata
	// scopesSupported are the protected resource metadata's scopes.
	scopesSupported []string
	// defaults is set when the authorization server published no metadata
	// and its endpoints are the 2025-03-26 defaults; PKCE support cannot be
	// checked then.
	defaults bool
	// resourceDPoP lists the DPoP proof algorithms the resource server
	// takes, nil when it gave no sign of taking DPoP-bound tokens (see
	// resourceTakesDPoP).
	resourceDPoP []string
}

// resourceTakesDPoP returns the DPoP proof algorithms the MCP endpoint
// takes, from its protected resource metadata (prm may be nil) and the
// challenge that sent the client to it: the algorithms the metadata lists,
// or, when it lists none but requires bound tokens or the challenge uses
// the DPoP scheme, any (["*"]). nil means a Bearer-only endpoint, to which
// a DPoP-bound token would be useless.
func resourceTakesDPoP(prm *auth.ProtectedResourceMetadata, ch auth.Challenge) []string {
	switch {
	case prm != nil && len(prm.DPoPSigningAlgValuesSupported) > 0:
		return prm.DPoPSigningAlgValuesSupported
	case prm != nil && prm.DPoPBoundAccessTokensRequired, strings.EqualFold(ch.Scheme, "DPoP"):
		return []string{"*"}
	}
	return nil
}

// discover finds the authorization server of the MCP endpoint: protected
// resource metadata from the challenge's resource_metadata or the
// well-known URLs (path-suffixed first, then root), then the authorization
// server's metadata with its issuer checked. When the endpoint publishes no
// protected resource metadata it falls back as the 2025-03-26 revision
// said: the endpoint's origin is the authorization server, and without
// metadata its endpoints are /authorize, /token and /register.
func (c *Client) discover(ctx context.Context, endpoint *url.URL, ch auth.Challenge) (*binding, error) {
	prm, err := c.resourceMetadata(ctx, endpoint, ch)
	if err != nil {
		return nil, err
	}
	if prm == nil {
		b, err := c.legacyBinding(ctx, endpoint)
		if err != nil {
			return nil, err
		}
		b.resourceDPoP = resourceTakesDPoP(nil, ch)
		return b, nil
	}
	if err := checkResource(prm.Resource, endpoint); err != nil {
		return nil, err
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("the protected resource metadata of %s names no authorization server", endpoint.Redacted())
	}
	issuer := c.chooseIssuer(prm.AuthorizationServers)
	meta, err := auth.DiscoverAuthorizationServer(ctx, c.hc, issuer)
	if err != nil {
		return nil, err
	}
	return &binding{issuer: issuer, resource: prm.Resource, meta: meta, scopesSupported: prm.ScopesSupported,
		resourceDPoP: resourceTakesDPoP(prm, ch)}, nil
}

// resourceMetadata fetches the protected resource metadata, or returns nil
// when the endpoint publishes none at the well-known URLs.
func (c *Client) resourceMetadata(ctx context.Context, endpoint *url.URL, ch auth.Challenge) (*auth.ProtectedResourceMetadata, error) {
	if u := ch.Params[auth.ParamResourceMetadata]; u != "" {
		if ru, err := url.Parse(u); err != nil || (ru.Scheme != "https" && ru.Scheme != "http") || ru.Host == "" {
			return nil, fmt.Errorf("the server's challenge names resource metadata at %q, which is not an http(s) URL", u)
		}
		var m auth.ProtectedResourceMetadata
		if err := fetch.JSON(ctx, c.hc, u, &m); err != nil {
			return nil, fmt.Errorf("protected resource metadata named by the server: %w", err)
		}
		return &m, nil
	}
	origin := endpoint.Scheme + "://" + endpoint.Host
	var candidates []string
	if p := strings.TrimSuffix(endpoint.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, origin+auth.WellKnownProtectedResource+p)
	}
	candidates = append(candidates, origin+auth.WellKnownProtectedResource)
	for _, u := range candidates {
		var m auth.ProtectedResourceMetadata
		err := fetch.JSON(ctx, c.hc, u, &m)
		if errors.Is(err, fetch.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata: %w", err)
		}
		return &m, nil
	}
	return nil, nil
}

// checkResource requires the metadata's resource to be the endpoint or a
// prefix of it: same scheme and host (case-insensitively, default ports
// implied), and a path that is the endpoint's or one of its parent paths.
func checkResource(resource string, endpoint *url.URL) error {
	r, err := url.Parse(resource)
	mismatch := func(why string) error {
		return fmt.Errorf("%w: the metadata names %q but the server is %s (%s); refusing to authorize",
			ErrResourceMismatch, resource, endpoint.Redacted(), why)
	}
	switch {
	case err != nil || r.Host == "":
		return mismatch("not an absolute URL")
	case r.Fragment != "":
		return mismatch("a resource has no fragment")
	case !strings.EqualFold(r.Scheme, endpoint.Scheme) || hostPort(r) != hostPort(endpoint):
		return mismatch("different origin")
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	ep := strings.TrimSuffix(endpoint.EscapedPath(), "/")
	if rp != "" && rp != ep && !strings.HasPrefix(ep, rp+"/") {
		return mismatch("different path")
	}
	return nil
}

// hostPort returns the lower-cased host and the port, explicit or default.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

// chooseIssuer picks the authorization server: the first with configured
// credentials, else the first listed.
func (c *Client) chooseIssuer(servers []string) string {
	for _, s := range servers {
		if slices.ContainsFunc(c.cfg.Clients, func(ci ClientInfo) bool { return ci.Issuer == s }) {
			return s
		}
	}
	return servers[0]
}

// legacyBinding is the 2025-03-26 fallback for endpoints without protected
// resource metadata.
func (c *Client) legacyBinding(ctx context.Context, endpoint *url.URL) (*binding, error) {
	origin := endpoint.Scheme + "://" + endpoint.Host
	resource := (&url.URL{Scheme: endpoint.Scheme, Host: endpoint.Host, Path: endpoint.Path, RawPath: endpoint.RawPath}).String()
	meta, err := auth.DiscoverAuthorizationServer(ctx, c.hc, origin)
	switch {
	case err == nil:
		return &binding{issuer: origin, resource: resource, meta: meta}, nil
	case !errors.Is(err, fetch.ErrNotFound):
		return nil, err
	}
	c.log.InfoContext(ctx, "oauth: no protected resource or authorization server metadata; using the 2025-03-26 default endpoints", "origin", origin)
	return &binding{
		issuer:   origin,
		resource: resource,
		defaults: true,
		meta: &auth.AuthorizationServerMetadata{
			Issuer:                origin,
			AuthorizationEndpoint: origin + "/authorize",
			TokenEndpoint:         origin + "/token",
			RegistrationEndpoint:  origin + "/register",
		},
	}, nil
}
