package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// ErrIssuerMismatch marks authorization server metadata whose "issuer" is not
// exactly the issuer identifier its URL was built from (RFC 8414 section
// 3.3). Such a document must not be used: it may come from a server
// impersonating another.
var ErrIssuerMismatch = errors.New("authorization server metadata names a different issuer")

// ErrNotFound marks a metadata document that no candidate URL serves.
var ErrNotFound = fetch.ErrNotFound

// Well-known URI suffixes (RFC 8414, OpenID Connect Discovery, RFC 9728).
const (
	WellKnownAuthorizationServer = "/.well-known/oauth-authorization-server"
	WellKnownOpenIDConfiguration = "/.well-known/openid-configuration"
	WellKnownProtectedResource   = "/.well-known/oauth-protected-resource"
)

// AuthorizationServerMetadataURLs returns the URLs to try, in order, for the
// metadata of the authorization server with the given issuer identifier: RFC
// 8414 with path insertion, OpenID Connect with path insertion, then OpenID
// Connect with the suffix appended (the last two coincide for an issuer
// without a path, and appear once).
func AuthorizationServerMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("issuer %q is not an absolute URL", issuer)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("issuer %q must not have a query or fragment (RFC 8414)", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{
			origin + WellKnownAuthorizationServer,
			origin + WellKnownOpenIDConfiguration,
		}, nil
	}
	return []string{
		origin + WellKnownAuthorizationServer + path,
		origin + WellKnownOpenIDConfiguration + path,
		origin + path + WellKnownOpenIDConfiguration,
	}, nil
}

// ProtectedResourceMetadataURL returns the RFC 9728 well-known URL of the
// metadata of resource: the suffix inserted between the host and the path,
// as in https://mcp.example.com/.well-known/oauth-protected-resource/mcp.
func ProtectedResourceMetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("resource %q is not an absolute URL", resource)
	}
	return u.Scheme + "://" + u.Host + WellKnownProtectedResource + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// DiscoverAuthorizationServer fetches the metadata of the authorization
// server identified by issuer from the URLs of
// [AuthorizationServerMetadataURLs], in order, and returns the first document
// found. The document's issuer must equal issuer exactly, or the result is an
// error wrapping [ErrIssuerMismatch]; when no URL serves a document the error
// wraps [ErrNotFound].
func DiscoverAuthorizationServer(ctx context.Context, hc *http.Client, issuer string) (*AuthorizationServerMetadata, error) {
	if err := fetch.CheckSecureURL("authorization server issuer", issuer); err != nil {
		return nil, err
	}
	urls, err := AuthorizationServerMetadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	for _, u := range urls {
		var m AuthorizationServerMetadata
		err := fetch.JSON(ctx, hc, u, &m)
		if errors.Is(err, fetch.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("authorization server metadata for %s: %w", issuer, err)
		}
		if m.Issuer != issuer {
			return nil, fmt.Errorf("%w: %s says issuer %q, but it was looked up for %q; refusing to use it",
				ErrIssuerMismatch, u, m.Issuer, issuer)
		}
		if err := m.validate(); err != nil {
			return nil, fmt.Errorf("authorization server metadata at %s: %w", u, err)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("%w: no authorization server metadata for %s at %s",
		fetch.ErrNotFound, issuer, strings.Join(urls, ", "))
}

// validate checks that every endpoint the document names is a secure URL.
func (m *AuthorizationServerMetadata) validate() error {
	for _, e := range []struct{ name, url string }{
		{"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint},
		{"registration_endpoint", m.RegistrationEndpoint},
		{"jwks_uri", m.JWKSURI},
		{"introspection_endpoint", m.IntrospectionEndpoint},
		{"revocation_endpoint", m.RevocationEndpoint},
	} {
		if e.url == "" {
			continue
		}
		if err := fetch.CheckSecureURL(e.name, e.url); err != nil {
			return err
		}
	}
	return nil
}
