package oauthclient

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftmcp/weft/auth"
)

// Grant types (RFC 6749, RFC 7523).
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	GrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

// Config configures a [Client].
type Config struct {
	// Grant is how tokens are obtained: GrantAuthorizationCode (the
	// default, on behalf of a user, through Authorizer),
	// GrantClientCredentials (on the client's own behalf, with credentials
	// from Clients), or GrantJWTBearer (exchanging an assertion from
	// Assertion, e.g. a workload identity token, or an ID-JAG from
	// IdentityProvider).
	Grant string
	// Authorizer gets the user's authorization; required for
	// GrantAuthorizationCode.
	Authorizer Authorizer
	// Assertion returns the JWT to exchange; GrantJWTBearer needs it or
	// IdentityProvider.
	Assertion func(ctx context.Context) (string, error)
	// IdentityProvider, with GrantJWTBearer, makes the client use
	// enterprise-managed authorization (SEP-990): for each authorization
	// server it exchanges the user's identity assertion at the identity
	// provider for an ID-JAG and presents that as the assertion. Tokens
	// obtained so are renewed by exchanging again.
	IdentityProvider *IdentityProvider

	// Clients are pre-registered credentials, each bound to the issuer of
	// the authorization server that issued them (or, without an Issuer, to
	// the first one the client meets; see ClientInfo.Issuer). They are
	// preferred over every other way of getting a client ID.
	Clients []ClientInfo
	// ClientIDMetadataURL is the https URL, with a path, where the
	// application hosts its client ID metadata document (see
	// [Client.ClientIDMetadataDocument]). It is the client ID at
	// authorization servers that advertise client_id_metadata_document_supported.
	ClientIDMetadataURL string
	// ClientName and ClientURI describe the application in dynamic
	// registrations and the metadata document.
	ClientName string
	ClientURI  string
	// ApplicationType is sent in dynamic registrations: "native" or "web".
	// Empty derives it from the redirect URI: "native" for loopback or
	// non-https URIs, else "web".
	ApplicationType string
	// DisableOfflineAccess stops the client asking for the offline_access
	// scope, which it otherwise adds to authorization requests when the
	// authorization server lists it, to get refresh tokens.
	DisableOfflineAccess bool
	// DPoPKey is the key DPoP proofs are signed with (RFC 9449): an ECDSA,
	// RSA or Ed25519 private key. Nil means a P-256 key generated for this
	// Client, so DPoP-bound tokens it saves in a persistent Store are of no
	// use to another process; give a key to keep them. The client asks for
	// DPoP-bound tokens when the authorization server's metadata lists the
	// key's algorithm in dpop_signing_alg_values_supported and the MCP
	// endpoint takes them (its protected resource metadata lists the
	// algorithm or requires bound tokens, or it challenges with DPoP).
	DPoPKey crypto.Signer
	// DisableDPoP makes the client ask for Bearer tokens only, even from
	// authorization servers that issue DPoP-bound ones.
	DisableDPoP bool

	// Store keeps tokens and registrations; nil means a new MemoryStore.
	Store TokenStore
	// HTTPClient talks to metadata, registration and token endpoints; nil
	// means a client with a 30-second timeout. It is not used for MCP
	// requests.
	HTTPClient *http.Client
	// Logger receives authorization events (never secrets); nil discards
	// them.
	Logger *slog.Logger
}

// Client obtains and refreshes tokens for MCP endpoints. It is safe for
// concurrent use; one authorization runs at a time per endpoint and per
// authorization server.
type Client struct {
	cfg   Config
	hc    *http.Client
	store TokenStore
	log   *slog.Logger
	now   func() time.Time

	dpop *dpopProver // nil when DPoP is disabled

	mu        sync.Mutex
	endpoints map[string]*endpoint   // by endpoint URL without query
	issuers   map[string]*sync.Mutex // one authorization at a time per AS
	boundTo   map[int]string         // unbound Config.Clients index -> issuer
}

// New checks cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	switch cfg.Grant {
	case "":
		cfg.Grant = GrantAuthorizationCode
		fallthrough
	case GrantAuthorizationCode:
		if cfg.Authorizer == nil {
			return nil, errors.New("oauthclient: the authorization code grant needs Config.Authorizer (NewHeadless or NewLoopback)")
		}
	case GrantClientCredentials:
		if len(cfg.Clients) == 0 {
			return nil, errors.New("oauthclient: the client credentials grant needs credentials in Config.Clients")
		}
	case GrantJWTBearer:
		if cfg.IdentityProvider != nil {
			if err := cfg.IdentityProvider.check(); err != nil {
				return nil, err
			}
		} else if cfg.Assertion == nil {
			return nil, errors.New("oauthclient: the JWT bearer grant needs Config.Assertion, or Config.IdentityProvider for enterprise-managed authorization")
		}
	default:
		return nil, fmt.Errorf("oauthclient: unknown grant %q", cfg.Grant)
	}
	if u := cfg.ClientIDMetadataURL; u != "" {
		p, err := url.Parse(u)
		if err != nil || p.Scheme != "https" || p.Host == "" || strings.Trim(p.Path, "/") == "" || p.Fragment != "" {
			return nil, fmt.Errorf("oauthclient: ClientIDMetadataURL %q must be an https URL with a path", u)
		}
	}
	for _, ci := range cfg.Clients {
		if ci.ClientID == "" {
			return nil, errors.New("oauthclient: a Config.Clients entry has no ClientID")
		}
	}
	cfg.Clients = slices.Clone(cfg.Clients)
	c := &Client{
		cfg:       cfg,
		hc:        cfg.HTTPClient,
		store:     cfg.Store,
		log:       cfg.Logger,
		now:       time.Now,
		endpoints: map[string]*endpoint{},
		issuers:   map[string]*sync.Mutex{},
		boundTo:   map[int]string{},
	}
	if c.hc == nil {
		c.hc = &http.Client{Timeout: 30 * time.Second}
	}
	if c.store == nil {
		c.store = &MemoryStore{}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if !cfg.DisableDPoP {
		var err error
		if c.dpop, err = newDPoPProver(cfg.DPoPKey); err != nil {
			return nil, fmt.Errorf("oauthclient: %w", err)
		}
	}
	return c, nil
}

// dpopFor returns the prover for token requests to b's authorization
// server, or nil when tokens from it are not to be DPoP-bound: both the
// authorization server and the resource server must take the prover's
// algorithm, or the token could not be used.
func (c *Client) dpopFor(b *binding) *dpopProver {
	switch {
	case c.dpop == nil, !c.dpop.accepts(b.meta.DPoPSigningAlgValuesSupported),
		!slices.Contains(b.resourceDPoP, "*") && !c.dpop.accepts(b.resourceDPoP):
		return nil
	}
	return c.dpop
}

// endpoint is the client's state for one MCP endpoint.
type endpoint struct {
	url *url.URL
	// mu is held while discovering, authorizing or refreshing.
	mu  sync.Mutex
	cur atomic.Pointer[session]
}

// session is an endpoint's binding and current token; it is replaced, never
// changed.
type session struct {
	b   *binding
	tok *Token
	// requested are the scopes asked for in the latest authorization.
	requested []string
}

// endpointFor returns the state for the endpoint u addresses.
func (c *Client) endpointFor(u *url.URL) *endpoint {
	key := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String()
	c.mu.Lock()
	defer c.mu.Unlock()
	ep := c.endpoints[key]
	if ep == nil {
		ep = &endpoint{url: &url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}}
		c.endpoints[key] = ep
	}
	return ep
}

// issuerLock returns the mutex that serializes authorizations at issuer.
func (c *Client) issuerLock(issuer string) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.issuers[issuer]
	if m == nil {
		m = &sync.Mutex{}
		c.issuers[issuer] = m
	}
	return m
}

// token returns the token to send to ep, refreshing it first when it has
// expired and can be refreshed; nil when there is none to send.
func (c *Client) token(ctx context.Context, ep *endpoint) *Token {
	s := ep.cur.Load()
	switch {
	case s == nil:
		return nil
	case s.tok == nil || !s.tok.expired(c.now()):
		return s.tok
	case s.tok.RefreshToken == "":
		return s.tok // let the server refuse it, and reauthorize on its 401
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if cur := ep.cur.Load(); cur != s {
		return cur.tok // refreshed meanwhile
	}
	tok, err := c.refresh(ctx, s.b, s.tok)
	if err != nil {
		c.log.InfoContext(ctx, "oauth: refresh failed; will authorize again", "issuer", s.b.issuer, "err", err)
		ep.cur.Store(&session{b: s.b, requested: s.requested})
		return nil
	}
	ep.cur.Store(&session{b: s.b, tok: tok, requested: s.requested})
	return tok
}

// reauthorize answers a 401 to a request sent with failed (nil when none):
// it rediscovers the authorization server, since the server may have moved
// to another, and gets a token by the cheapest means left: one another
// request already got, one in the store, a refresh, or a new
// authorization.
func (c *Client) reauthorize(ctx context.Context, ep *endpoint, failed *Token, ch auth.Challenge) (*Token, error) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	s := ep.cur.Load()
	if s != nil && s.tok != nil && s.tok != failed && !s.tok.expired(c.now()) {
		return s.tok, nil
	}
	b, err := c.discover(ctx, ep.url, ch)
	if err != nil {
		return nil, err
	}
	same := s != nil && s.b.issuer == b.issuer && s.b.resource == b.resource
	var previous []string
	if s != nil && s.b.resource == b.resource {
		previous = s.requested
	}
	stored, err := c.store.Token(ctx, b.issuer, b.resource)
	if err != nil {
		return nil, fmt.Errorf("read the stored token for %s: %w", b.resource, err)
	}
	if stored != nil && (failed == nil || stored.AccessToken != failed.AccessToken) && !stored.expired(c.now()) {
		ep.cur.Store(&session{b: b, tok: stored, requested: union(previous, stored.Scopes)})
		return stored, nil
	}
	if stored != nil {
		if err := c.store.DeleteToken(ctx, b.issuer, b.resource); err != nil {
			return nil, fmt.Errorf("forget the rejected token for %s: %w", b.resource, err)
		}
	}
	if same && failed != nil && failed.RefreshToken != "" {
		if tok, err := c.refresh(ctx, b, failed); err == nil {
			ep.cur.Store(&session{b: b, tok: tok, requested: previous})
			return tok, nil
		}
	}
	scopes := fieldsOr(ch.Params[auth.ParamScope], b.scopesSupported)
	return c.authorize(ctx, ep, b, union(previous, scopes))
}

// errFutile is returned by stepUp when authorizing again cannot help.
var errFutile = errors.New("step-up would request scopes already requested")

// stepUp answers a 403 insufficient_scope to a request sent with failed:
// it authorizes again for the union of the scopes requested before and
// those the challenge names (SEP-2350). It returns errFutile when those
// scopes were all requested already, so that a server that will never be
// satisfied gets its 403 back instead of an authorization loop.
func (c *Client) stepUp(ctx context.Context, ep *endpoint, failed *Token, ch auth.Challenge) (*Token, error) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	need := strings.Fields(ch.Params[auth.ParamScope])
	s := ep.cur.Load()
	if s != nil && s.tok != nil && s.tok != failed && covers(s.tok.Scopes, need) {
		return s.tok, nil
	}
	var previous []string
	var b *binding
	if s != nil {
		previous, b = union(s.requested, tokenScopes(failed)), s.b
	}
	if covers(previous, need) {
		return nil, errFutile
	}
	if b == nil {
		var err error
		if b, err = c.discover(ctx, ep.url, ch); err != nil {
			return nil, err
		}
	}
	return c.authorize(ctx, ep, b, union(previous, need))
}

// authorize obtains a new token for b with the grant configured, records
// it and returns it.
func (c *Client) authorize(ctx context.Context, ep *endpoint, b *binding, scopes []string) (*Token, error) {
	lock := c.issuerLock(b.issuer)
	lock.Lock()
	defer lock.Unlock()
	if c.cfg.Grant == GrantAuthorizationCode && !c.cfg.DisableOfflineAccess && slices.Contains(b.meta.ScopesSupported, "offline_access") {
		scopes = union(scopes, []string{"offline_access"})
	}
	c.log.InfoContext(ctx, "oauth: authorizing", "issuer", b.issuer, "resource", b.resource, "grant", c.cfg.Grant, "scope", strings.Join(scopes, " "))
	var tok *Token
	var err error
	switch c.cfg.Grant {
	case GrantAuthorizationCode:
		tok, err = c.authorizationCode(ctx, b, scopes)
	case GrantClientCredentials:
		tok, err = c.clientCredentials(ctx, b, scopes)
	case GrantJWTBearer:
		tok, err = c.jwtBearer(ctx, b, scopes)
	}
	if err != nil {
		return nil, fmt.Errorf("authorize at %s for %s: %w", b.issuer, b.resource, err)
	}
	if err := c.store.SaveToken(ctx, b.issuer, b.resource, tok); err != nil {
		return nil, fmt.Errorf("save the token for %s: %w", b.resource, err)
	}
	ep.cur.Store(&session{b: b, tok: tok, requested: scopes})
	return tok, nil
}

// fieldsOr splits a scope parameter, or returns def when it is empty.
func fieldsOr(scope string, def []string) []string {
	if f := strings.Fields(scope); len(f) > 0 {
		return f
	}
	return def
}

// union returns a followed by the elements of b not in a.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, s := range slices.Concat(a, b) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// covers reports whether have contains every scope of need.
func covers(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}

func tokenScopes(t *Token) []string {
	if t == nil {
		return nil
	}
	return t.Scopes
}
