package auth

import (
	"context"
	"time"
)

// TokenInfo is what a [Verifier] learned from a valid access token.
type TokenInfo struct {
	// Issuer is the issuer identifier of the authorization server that
	// issued the token.
	Issuer string
	// Subject identifies the resource owner (the "sub" claim). For tokens an
	// application obtained for itself (client credentials) it is often the
	// client ID.
	Subject string
	// ClientID is the OAuth client the token was issued to.
	ClientID string
	// Scopes are the scopes the token grants.
	Scopes []string
	// Audience lists the resources the token may be used at. The middleware
	// rejects tokens whose audience does not contain the protected resource.
	Audience []string
	// Expiry is when the token stops being valid; zero means the verifier
	// knows no expiry.
	Expiry time.Time
	// Confirmation is the RFC 7638 SHA-256 thumbprint (base64url) of the
	// key the token is bound to, from its cnf.jkt claim (RFC 9449 section
	// 6); empty for a bearer token. The middleware accepts a bound token
	// only with a DPoP proof signed with that key.
	Confirmation string
	// CertificateThumbprint is the SHA-256 thumbprint (base64url) of the
	// client certificate the token is bound to, from its cnf."x5t#S256"
	// claim (RFC 8705 section 3.1); empty for a token not bound to one. The
	// middleware accepts such a token only over a TLS connection on which
	// the client presented that certificate.
	CertificateThumbprint string
	// Claims holds every claim of a JWT, or every member of an introspection
	// response, for applications that need more than the fields above. It is
	// nil for verifiers that have none.
	Claims map[string]any
}

// Principal names the party the token speaks for, in a form that two
// authorization servers can never share: the issuer, a '#', then "sub:" and
// the subject, or "client:" and the client ID when the token has no subject.
// Issuer identifiers cannot contain '#' (RFC 8414 forbids fragments), so the
// issuer part ends unambiguously. It returns "" for a token with neither a
// subject nor a client ID; the middleware refuses such tokens.
//
// The task engine binds tasks to this string, so the same user at two
// authorization servers owns two disjoint sets of tasks.
func (ti *TokenInfo) Principal() string {
	switch {
	case ti == nil:
		return ""
	case ti.Subject != "":
		return ti.Issuer + "#sub:" + ti.Subject
	case ti.ClientID != "":
		return ti.Issuer + "#client:" + ti.ClientID
	}
	return ""
}

// authContext is what the middleware stores in a request's context.
type authContext struct {
	info *TokenInfo
	rs   *ResourceServer // nil when set by ContextWithTokenInfo
}

type authContextKey struct{}

// ContextWithTokenInfo returns a copy of ctx carrying info, as the middleware
// does for an authenticated request. Transports that authenticate callers by
// other means, and tests of handlers, use it; [RequireScopes] then compares
// scopes by plain equality.
func ContextWithTokenInfo(ctx context.Context, info *TokenInfo) context.Context {
	return context.WithValue(ctx, authContextKey{}, &authContext{info: info})
}

// TokenInfoFrom returns the verified token of the request ctx belongs to, or
// nil when the request was not authenticated.
func TokenInfoFrom(ctx context.Context) *TokenInfo {
	if ac := authContextFrom(ctx); ac != nil {
		return ac.info
	}
	return nil
}

// PrincipalFrom returns the principal ([TokenInfo.Principal]) of the request
// ctx belongs to, or "" when the request was not authenticated. The
// streamable HTTP handler passes it to the server as RequestInfo.Principal.
func PrincipalFrom(ctx context.Context) string {
	return TokenInfoFrom(ctx).Principal()
}

func authContextFrom(ctx context.Context) *authContext {
	ac, _ := ctx.Value(authContextKey{}).(*authContext)
	return ac
}
