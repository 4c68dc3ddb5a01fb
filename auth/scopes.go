package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// ErrUnauthenticated is returned by [RequireScopes] for a context that
// carries no verified token: the request did not pass through
// the middleware (for example it came over stdio, where MCP authorization
// does not apply). A tool that should run unauthenticated there checks
// [TokenInfoFrom] first.
var ErrUnauthenticated = errors.New("the request is not authenticated")

// InsufficientScopeError reports that a token lacks scopes an operation
// needs. [WriteError] answers it with 403 and a Bearer challenge carrying
// error="insufficient_scope" and every scope the operation needs, so that
// the client can step up its authorization.
type InsufficientScopeError struct {
	// Required lists every scope the operation needs, including those the
	// token already has.
	Required []string
	// Missing lists the required scopes the token lacks.
	Missing []string
	// ResourceMetadata is the URL of the resource's metadata, for the
	// challenge; empty when the context had no ResourceServer.
	ResourceMetadata string
}

// Error implements error.
func (e *InsufficientScopeError) Error() string {
	return fmt.Sprintf("the access token lacks scope %q; authorize again with scope %q",
		strings.Join(e.Missing, " "), strings.Join(e.Required, " "))
}

// RequireScopes checks that the token of the request ctx belongs to grants
// every scope in scopes (directly or through [Config.ImpliedScopes]). It
// returns nil, an [*InsufficientScopeError] naming the scopes every request
// needs plus scopes, or [ErrUnauthenticated]. Handlers call it for checks
// that depend on arguments; fixed per-tool scopes belong in
// [Config.ToolScopes].
func RequireScopes(ctx context.Context, scopes ...string) error {
	ac := authContextFrom(ctx)
	if ac == nil || ac.info == nil {
		return ErrUnauthenticated
	}
	var base []string
	if ac.rs != nil {
		base = ac.rs.cfg.Scopes
	}
	return ac.rs.check(ac, union(base, scopes))
}

// Authorize checks the scopes an MCP request needs by its method and, for
// tools/call, its tool name: those of [Config.Scopes],
// [Config.MethodScopes] and [Config.ToolScopes]. The streamable HTTP handler
// calls it once it knows the method and name (from the Mcp-Method and
// Mcp-Name headers or the body), before dispatching, and answers a non-nil
// error with [WriteError]. It returns nil for a request that did not pass
// through a [ResourceServer]'s middleware, since no policy applies to it,
// so the handler may call it whether or not authorization is configured.
func Authorize(ctx context.Context, method, name string) error {
	ac := authContextFrom(ctx)
	if ac == nil || ac.rs == nil {
		return nil
	}
	need := union(ac.rs.cfg.Scopes, ac.rs.cfg.MethodScopes[method])
	if method == "tools/call" {
		need = union(need, ac.rs.cfg.ToolScopes[name])
	}
	return ac.rs.check(ac, need)
}

// check returns an InsufficientScopeError when ac's token lacks a scope in
// need. rs may be nil (a context from ContextWithTokenInfo).
func (rs *ResourceServer) check(ac *authContext, need []string) error {
	var missing []string
	for _, s := range need {
		if !rs.grants(ac.info.Scopes, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	e := &InsufficientScopeError{Required: slices.Clone(need), Missing: missing}
	if rs != nil {
		e.ResourceMetadata = rs.metadataURL
	}
	return e
}

// grants reports whether the granted scopes include want, directly or by
// implication.
func (rs *ResourceServer) grants(granted []string, want string) bool {
	if slices.Contains(granted, want) {
		return true
	}
	if rs == nil {
		return false
	}
	for _, g := range granted {
		if slices.Contains(rs.cfg.ImpliedScopes[g], want) {
			return true
		}
	}
	return false
}

// IsRefusal reports whether [WriteError] answers err: whether err (or its
// chain) is an [*InsufficientScopeError] or [ErrUnauthenticated].
func IsRefusal(err error) bool {
	var scopeErr *InsufficientScopeError
	return errors.As(err, &scopeErr) || errors.Is(err, ErrUnauthenticated)
}

// WriteError answers an error from [Authorize] or [RequireScopes] and
// reports whether it did: an [*InsufficientScopeError] (anywhere in err's
// chain) gets 403 with the step-up challenge, [ErrUnauthenticated] gets 401.
// It writes nothing and returns false for any other error.
func WriteError(w http.ResponseWriter, err error) bool {
	var scopeErr *InsufficientScopeError
	switch {
	case errors.As(err, &scopeErr):
		writeInsufficientScope(w, scopeErr)
		return true
	case errors.Is(err, ErrUnauthenticated):
		w.Header().Set("WWW-Authenticate", formatBearer())
		writeOAuthBody(w, http.StatusUnauthorized, ErrorInvalidToken, err.Error())
		return true
	}
	return false
}

func writeInsufficientScope(w http.ResponseWriter, e *InsufficientScopeError) {
	w.Header().Set("WWW-Authenticate", formatBearer(
		ParamError, ErrorInsufficientScope,
		ParamScope, strings.Join(e.Required, " "),
		ParamResourceMetadata, e.ResourceMetadata,
		ParamErrorDescription, e.Error()))
	writeOAuthBody(w, http.StatusForbidden, ErrorInsufficientScope, e.Error())
}

// union returns a followed by the elements of b not in a, without
// duplicates.
func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for _, s := range slices.Concat(a, b) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
