package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
)

// Middleware returns a handler that authenticates every request to next with
// a bearer token from the Authorization header (never from the query string
// or body; RFC 6750 section 2.1 only), checks it with the Verifier, checks
// its audience, expiry and the [Config.Scopes] every request needs, and
// passes the verified [TokenInfo] to next in the request's context
// ([TokenInfoFrom], [PrincipalFrom]).
//
// A missing or invalid token gets 401 with a Bearer challenge naming the
// resource metadata URL and the scopes to request (plus
// error="invalid_token" when a token was sent); missing scopes get 403 with
// error="insufficient_scope". CORS preflight requests (OPTIONS) pass through
// unauthenticated, since browsers never attach credentials to them, and
// refusals are readable by pages of any origin (the challenge names only
// public metadata), so a browser-based client can start authorization.
func (rs *ResourceServer) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		if rs.dpop != nil && rs.dpop.nonces != nil {
			w.Header().Set("DPoP-Nonce", rs.dpop.nonces.current(time.Now()))
		}
		info, err := rs.authenticate(r)
		if err != nil {
			exposeRefusal(w, r)
			rs.writeAuthError(w, err)
			return
		}
		ac := &authContext{info: info, rs: rs}
		if err := rs.check(ac, rs.cfg.Scopes); err != nil {
			exposeRefusal(w, r)
			rs.writeAuthError(w, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authContextKey{}, ac)))
	})
}

// exposeRefusal lets a page of any origin read the refusal of its
// cross-origin request (r has an Origin): the status and the challenge.
func exposeRefusal(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") == "" {
		return
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Expose-Headers", "WWW-Authenticate, DPoP-Nonce")
}

// errNoToken marks a request without a bearer token.
var errNoToken = errors.New("no bearer token in the Authorization header")

// errVerifierFailed marks a verifier failure that is not the token's fault.
var errVerifierFailed = errors.New("token verification is unavailable")

// maxTokenBytes bounds the bearer tokens the middleware passes to a verifier.
const maxTokenBytes = 16 << 10

func (rs *ResourceServer) authenticate(r *http.Request) (*TokenInfo, error) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return nil, errNoToken
	}
	if len(values) > 1 {
		return nil, invalidf("the request has %d Authorization headers; send exactly one", len(values))
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	token = strings.TrimLeft(token, " ")
	dpop := strings.EqualFold(scheme, "DPoP")
	if !ok || !(dpop || strings.EqualFold(scheme, "Bearer")) || token == "" || strings.ContainsAny(token, " \t") {
		return nil, invalidf(`the Authorization header must be "Bearer <token>" or "DPoP <token>"`)
	}
	if dpop && rs.dpop == nil {
		return nil, invalidf("this server does not take DPoP-bound tokens; present a Bearer token")
	}
	if len(token) > maxTokenBytes {
		return nil, invalidf("the bearer token is longer than %d bytes", maxTokenBytes)
	}
	info, err := rs.cfg.Verifier.Verify(r.Context(), token)
	if err != nil {
		if errors.Is(err, ErrInvalidToken) {
			return nil, err
		}
		rs.log.ErrorContext(r.Context(), "auth: token verification failed", "err", err)
		return nil, errVerifierFailed
	}
	if info == nil {
		rs.log.ErrorContext(r.Context(), "auth: verifier returned neither token info nor an error")
		return nil, errVerifierFailed
	}
	if !slices.Contains(info.Audience, rs.cfg.Resource) {
		return nil, invalidf("the token is not meant for %s (its audience is %q)", rs.cfg.Resource, info.Audience)
	}
	if !info.Expiry.IsZero() && time.Now().After(info.Expiry.Add(rs.cfg.Leeway)) {
		return nil, invalidf("the token expired at %s", info.Expiry.UTC().Format(time.RFC3339))
	}
	if info.Principal() == "" {
		return nil, invalidf("the token names neither a subject nor a client")
	}
	if err := checkCertificateBinding(r, info); err != nil {
		return nil, err
	}
	switch {
	case dpop:
		now := time.Now()
		proof, err := rs.dpop.check(r, token, now)
		if err != nil {
			return nil, err
		}
		if info.Confirmation == "" {
			return nil, invalidf("the token is not DPoP-bound; present it with the Bearer scheme")
		}
		if info.Confirmation != proof.thumb {
			return nil, proofErrorf("it is signed with another key than the one the token is bound to")
		}
		if err := rs.dpop.replays.remember(proof.thumb, proof.jti, now); err != nil {
			return nil, err
		}
	case info.Confirmation != "":
		return nil, invalidf("the token is DPoP-bound: present it with the DPoP scheme and a proof signed with its key")
	case rs.dpop != nil && rs.dpop.required:
		return nil, invalidf("this server takes only DPoP-bound tokens")
	}
	return info, nil
}

// invalidf returns an error wrapping ErrInvalidToken.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidToken}, args...)...)
}

// writeAuthError answers a request the middleware refused.
func (rs *ResourceServer) writeAuthError(w http.ResponseWriter, err error) {
	var scopeErr *InsufficientScopeError
	switch {
	case errors.As(err, &scopeErr):
		writeInsufficientScope(w, scopeErr)
	case errors.Is(err, errNoToken):
		rs.challenge(w)
		writeOAuthBody(w, http.StatusUnauthorized, ErrorInvalidToken, "Authorization needed: "+err.Error())
	case errors.Is(err, ErrInvalidDPoPProof):
		code, desc := ErrorInvalidDPoPProof, err.Error()
		if errors.Is(err, errUseDPoPNonce) {
			code = ErrorUseDPoPNonce
		}
		w.Header().Set("WWW-Authenticate", formatChallenge("DPoP", "algs", rs.dpop.names,
			ParamResourceMetadata, rs.metadataURL, ParamError, code, ParamErrorDescription, desc))
		writeOAuthBody(w, http.StatusUnauthorized, code, desc)
	case errors.Is(err, ErrInvalidToken):
		desc := err.Error()
		rs.challenge(w, ParamError, ErrorInvalidToken, ParamErrorDescription, desc)
		writeOAuthBody(w, http.StatusUnauthorized, ErrorInvalidToken, desc)
	default:
		w.Header().Set("Retry-After", "5")
		writeOAuthBody(w, http.StatusServiceUnavailable, "temporarily_unavailable",
			"the server cannot verify tokens right now; retry later")
	}
}

// challenge sets the WWW-Authenticate challenges of a 401, with the
// resource metadata URL, the scopes and extra name/value pairs: a Bearer
// challenge unless DPoP is required, and a DPoP one (with its algorithms)
// when DPoP is on.
func (rs *ResourceServer) challenge(w http.ResponseWriter, extra ...string) {
	pairs := append([]string{ParamResourceMetadata, rs.metadataURL, ParamScope, strings.Join(rs.cfg.Scopes, " ")}, extra...)
	if rs.dpop == nil || !rs.dpop.required {
		w.Header().Add("WWW-Authenticate", formatBearer(pairs...))
	}
	if rs.dpop != nil {
		w.Header().Add("WWW-Authenticate", formatChallenge("DPoP", append([]string{"algs", rs.dpop.names}, pairs...)...))
	}
}

// writeOAuthBody writes an OAuth-style JSON error body.
func writeOAuthBody(w http.ResponseWriter, status int, code, desc string) {
	body, _ := json.Marshal(struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description,omitempty"`
	}{code, desc})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
