package oauthclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// An Authorizer gets the user's authorization for the authorization code
// grant: it sends the user agent to an authorization URL and returns the
// parameters of the redirect back to its redirect URI. The [Client] checks
// them (state, iss, error) and redeems the code.
type Authorizer interface {
	// RedirectURL is the redirect URI registered for the client.
	RedirectURL() string
	// Authorize sends the user agent to authURL and returns the query
	// parameters of the resulting redirect to RedirectURL.
	Authorize(ctx context.Context, authURL string) (url.Values, error)
}

// Headless is an [Authorizer] for authorization servers that authorize
// without user interaction, as the MCP conformance suite's mock does: it
// fetches the authorization URL without following redirects and reads the
// code from the Location header. Nothing needs to listen at its redirect
// URI.
type Headless struct {
	redirect string
	hc       *http.Client
}

// NewHeadless returns a headless authorizer that registers redirectURL
// (such as "http://localhost:3000/callback") and fetches authorization URLs
// with hc (nil means http.DefaultClient; its redirect policy is not used).
func NewHeadless(redirectURL string, hc *http.Client) (*Headless, error) {
	if err := fetch.CheckSecureURL("oauthclient: redirect URI", redirectURL); err != nil {
		return nil, err
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	noFollow := *hc
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Headless{redirect: redirectURL, hc: &noFollow}, nil
}

// RedirectURL returns the redirect URI given to NewHeadless.
func (h *Headless) RedirectURL() string { return h.redirect }

// Authorize GETs authURL and returns the query of the redirect it answers
// with, which must point at the redirect URI.
func (h *Headless) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, fmt.Errorf("build authorization request: %w", err)
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil || resp.StatusCode < 300 || resp.StatusCode > 399 {
		return nil, fmt.Errorf("the authorization endpoint answered HTTP %d without a redirect; headless authorization needs a server that authorizes without user interaction (use a Loopback authorizer instead)", resp.StatusCode)
	}
	if !sameEndpoint(loc, h.redirect) {
		return nil, fmt.Errorf("the authorization endpoint redirected to %s, not to the redirect URI %s; it probably wants the user to sign in (use a Loopback authorizer instead)", loc.Redacted(), h.redirect)
	}
	return loc.Query(), nil
}

// sameEndpoint reports whether u points at the scheme, host and path of
// redirect.
func sameEndpoint(u *url.URL, redirect string) bool {
	r, err := url.Parse(redirect)
	return err == nil && u.Scheme == r.Scheme && u.Host == r.Host && u.EscapedPath() == r.EscapedPath()
}
