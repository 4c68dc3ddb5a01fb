package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/weftmcp/weft/auth/internal/fetch"
)

// Config describes an MCP endpoint protected by OAuth.
type Config struct {
	// Resource is the canonical URL of the MCP endpoint, such as
	// "https://mcp.example.com/mcp" (RFC 8707 resource indicator). Tokens must
	// name it in their audience. Required.
	Resource string
	// AuthorizationServers lists the issuer identifiers of the authorization
	// servers clients should get tokens from. Required.
	AuthorizationServers []string
	// Verifier checks bearer tokens. Required.
	Verifier Verifier

	// Scopes are needed by every request. The 401 challenge names them so
	// that clients ask for them up front.
	Scopes []string
	// MethodScopes adds scopes needed by particular MCP methods, and
	// ToolScopes by particular tools (tools/call by params.name). They are
	// checked by [Authorize].
	MethodScopes map[string][]string
	ToolScopes   map[string][]string
	// ImpliedScopes maps a broad scope to the narrower scopes it grants, so
	// that a token with "files:write" satisfies "files:read" when
	// ImpliedScopes["files:write"] contains "files:read". It is not
	// transitive.
	ImpliedScopes map[string][]string
	// ScopesSupported is published in the protected resource metadata as the
	// scopes for basic use; nil publishes Scopes.
	ScopesSupported []string

	// ResourceName and ResourceDocumentation are published in the metadata.
	ResourceName          string
	ResourceDocumentation string

	// DPoP, when set, makes the resource accept DPoP-bound tokens (RFC 9449)
	// presented with the DPoP scheme and a proof, and say so in its
	// metadata and challenges. A DPoP-bound token is refused as a Bearer
	// token whether or not DPoP is set.
	DPoP *DPoPConfig

	// Leeway is the clock skew allowed when the middleware checks a token's
	// expiry; zero means 30 seconds.
	Leeway time.Duration
	// Logger receives verification failures caused by infrastructure (never
	// tokens); nil discards them.
	Logger *slog.Logger
}

// ResourceServer enforces a [Config] on HTTP requests. It is safe for
// concurrent use.
type ResourceServer struct {
	cfg         Config
	metadata    ProtectedResourceMetadata
	metadataURL string
	log         *slog.Logger
	dpop        *dpopChecker // nil without Config.DPoP
}

// New checks cfg and returns a ResourceServer for it.
func New(cfg Config) (*ResourceServer, error) {
	if err := checkResource(cfg.Resource); err != nil {
		return nil, err
	}
	if len(cfg.AuthorizationServers) == 0 {
		return nil, errors.New("auth: Config.AuthorizationServers is empty; name at least one issuer")
	}
	for _, as := range cfg.AuthorizationServers {
		if err := fetch.CheckSecureURL("auth: authorization server", as); err != nil {
			return nil, err
		}
	}
	if cfg.Verifier == nil {
		return nil, errors.New("auth: Config.Verifier is nil; use NewJWTVerifier, NewIntrospectionVerifier or a VerifierFunc")
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	metadataURL, err := ProtectedResourceMetadataURL(cfg.Resource)
	if err != nil {
		return nil, err
	}
	supported := cfg.ScopesSupported
	if supported == nil {
		supported = cfg.Scopes
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var dpop *dpopChecker
	if cfg.DPoP != nil {
		if dpop, err = newDPoPChecker(cfg.DPoP, cfg.Resource); err != nil {
			return nil, err
		}
	}
	rs := &ResourceServer{
		cfg: cfg,
		metadata: ProtectedResourceMetadata{
			Resource:               cfg.Resource,
			AuthorizationServers:   slices.Clone(cfg.AuthorizationServers),
			ScopesSupported:        slices.Clone(supported),
			BearerMethodsSupported: []string{"header"},
			ResourceName:           cfg.ResourceName,
			ResourceDocumentation:  cfg.ResourceDocumentation,
		},
		metadataURL: metadataURL,
		log:         log,
		dpop:        dpop,
	}
	if dpop != nil {
		rs.metadata.DPoPSigningAlgValuesSupported = strings.Fields(dpop.names)
		rs.metadata.DPoPBoundAccessTokensRequired = dpop.required
	}
	return rs, nil
}

// DefaultLeeway is the clock skew allowed by default when checking a token's
// validity period.
const DefaultLeeway = 30 * time.Second

func checkResource(resource string) error {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("auth: Config.Resource %q must be the absolute http(s) URL of the MCP endpoint", resource)
	}
	if u.Fragment != "" || u.RawQuery != "" {
		return fmt.Errorf("auth: Config.Resource %q must not have a query or fragment (RFC 8707)", resource)
	}
	return nil
}

// Metadata returns the protected resource metadata the server publishes.
func (rs *ResourceServer) Metadata() ProtectedResourceMetadata {
	m := rs.metadata
	m.AuthorizationServers = slices.Clone(m.AuthorizationServers)
	m.ScopesSupported = slices.Clone(m.ScopesSupported)
	m.BearerMethodsSupported = slices.Clone(m.BearerMethodsSupported)
	m.DPoPSigningAlgValuesSupported = slices.Clone(m.DPoPSigningAlgValuesSupported)
	return m
}

// MetadataURL returns the URL of the protected resource metadata, the
// path-suffixed RFC 9728 well-known URL of the resource. Challenges name it
// in their resource_metadata parameter.
func (rs *ResourceServer) MetadataURL() string { return rs.metadataURL }

// Handler returns a handler that serves the protected resource metadata at
// the root and path-suffixed well-known paths and passes every other request
// through [ResourceServer.Middleware] to mcp.
func (rs *ResourceServer) Handler(mcp http.Handler) http.Handler {
	metadata := rs.MetadataHandler()
	suffixed := strings.TrimPrefix(rs.metadataURL, originOf(rs.metadataURL))
	protected := rs.Middleware(mcp)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.EscapedPath(); p == WellKnownProtectedResource || p == suffixed {
			metadata.ServeHTTP(w, r)
			return
		}
		protected.ServeHTTP(w, r)
	})
}

// originOf returns the scheme://host part of an absolute URL.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
