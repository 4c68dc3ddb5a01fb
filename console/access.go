package console

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/weftmcp/weft/auth"
)

// csrfHeader is the header every action carries the console's CSRF token
// in. A page of another site can neither read the token nor send a custom
// header without a CORS preflight, which the console never grants.
const csrfHeader = "X-Weft-Console-Csrf"

// cookieName is the cookie the page's sign-in keeps the access token in:
// HttpOnly (the page's script never holds it) and SameSite=Strict.
const cookieName = "weft_console_token"

// access is what the console knows of a request it admitted.
type access struct {
	expires  time.Time // when the token lapses; zero for none
	byCookie bool      // the token came from the cookie a browser sends by itself
	who      string    // the token's principal, for the log; "" without a verifier
}

// adminHandler is a route that shows or changes tasks.
type adminHandler func(w http.ResponseWriter, r *http.Request, a access)

// admin admits a request to h only with a token granting the admin scope
// (when the console requires one), and an action (POST) only with the CSRF
// token too, unless its token came in the Authorization header, which no
// browser adds by itself.
func (c *Console) admin(h adminHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, status, err := c.authorize(r)
		if err != nil {
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="weft console", scope="`+c.scope+`"`)
			}
			problem(w, status, err.Error())
			return
		}
		if r.Method == http.MethodPost && (a.byCookie || c.verifier == nil) && !c.csrfOK(r) {
			problem(w, http.StatusForbidden, "the action carries no valid CSRF token: use the console's page, which sends it in "+csrfHeader)
			return
		}
		h(w, r, a)
	})
}

// authorize checks the request's token: from the Authorization header, or
// else the sign-in cookie. It returns the HTTP status to refuse with.
func (c *Console) authorize(r *http.Request) (access, int, error) {
	if c.verifier == nil {
		return access{}, 0, nil
	}
	token, byCookie := "", false
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(rest) == "" {
			return access{}, http.StatusUnauthorized, errors.New("the Authorization header is not \"Bearer TOKEN\"")
		}
		token = strings.TrimSpace(rest)
	} else if ck, err := r.Cookie(cookieName); err == nil && ck.Value != "" {
		token, byCookie = ck.Value, true
	} else {
		return access{}, http.StatusUnauthorized, fmt.Errorf("the console needs an access token granting the %q scope: sign in on its page, "+
			"or send it as Authorization: Bearer TOKEN", c.scope)
	}
	info, status, err := c.check(r.Context(), token)
	if err != nil {
		return access{}, status, err
	}
	return access{expires: info.Expiry, byCookie: byCookie, who: info.Principal()}, 0, nil
}

// check verifies the token and its scope.
func (c *Console) check(ctx context.Context, token string) (*auth.TokenInfo, int, error) {
	info, err := c.verifier.Verify(ctx, token)
	switch {
	case errors.Is(err, auth.ErrInvalidToken):
		return nil, http.StatusUnauthorized, fmt.Errorf("the access token is not valid: %v", err)
	case err != nil:
		return nil, http.StatusServiceUnavailable, fmt.Errorf("the access token could not be checked: %v; try again", err)
	case !info.Expiry.IsZero() && !c.now().Before(info.Expiry):
		return nil, http.StatusUnauthorized, errors.New("the access token has expired: get a new one")
	case info.Confirmation != "":
		return nil, http.StatusUnauthorized, errors.New("the access token is bound to a DPoP key, which a browser page cannot prove: use a bearer token")
	case !slices.Contains(info.Scopes, c.scope):
		return nil, http.StatusForbidden, fmt.Errorf("the access token does not grant the %q scope the console requires", c.scope)
	}
	return info, 0, nil
}

// csrfOK reports whether the request carries the console's CSRF token.
func (c *Console) csrfOK(r *http.Request) bool {
	return subtle.ConstantTimeCompare([]byte(r.Header.Get(csrfHeader)), []byte(c.csrf)) == 1
}

// checkOrigin applies the Origin and Host policy, then refuses any Origin
// but the console's own: its pages are the only ones that may use it. The
// console's own Origin passes where the policy would refuse it, when its
// name is one the operator allowed (AllowedHosts), or when a token is
// required (a page that rebinds its name to the console's address has no
// token for it): else the console's page behind a proxy, or on an address
// of its own, could not sign in or cancel.
func (c *Console) checkOrigin(r *http.Request) error {
	if c.origins.Disabled {
		return nil
	}
	origins := r.Header.Values("Origin")
	own := len(origins) == 1 && sameHost(origins[0], r.Host)
	if own && (c.verifier != nil || c.origins.AllowsHost(r.Host)) {
		bare := *r
		bare.Header = r.Header.Clone()
		bare.Header.Del("Origin")
		return c.origins.Check(&bare)
	}
	if err := c.origins.Check(r); err != nil {
		return err
	}
	if len(origins) > 0 && !own {
		return fmt.Errorf("origin %q is not the console's own (%s): only the console's page may use it", origins[0], r.Host)
	}
	return nil
}

// sameHost reports whether origin (scheme://host[:port]) names host.
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, host)
}

// signIn checks the token posted from the page's sign-in form and keeps it
// in an HttpOnly cookie, for the page's requests and its event stream
// (which cannot carry an Authorization header).
func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	if !c.csrfOK(r) {
		problem(w, http.StatusForbidden, "the sign-in carries no valid CSRF token: sign in on the console's page")
		return
	}
	if c.verifier == nil {
		problem(w, http.StatusBadRequest, "this console requires no token")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	token := strings.TrimSpace(r.PostFormValue("token"))
	if token == "" {
		problem(w, http.StatusBadRequest, "the sign-in has no token: paste an access token granting the "+c.scope+" scope")
		return
	}
	info, status, err := c.check(r.Context(), token)
	if err != nil {
		problem(w, status, err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: token, Path: mountPath(r), Expires: info.Expiry,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

// signOut forgets the sign-in cookie.
func (c *Console) signOut(w http.ResponseWriter, r *http.Request) {
	if !c.csrfOK(r) {
		problem(w, http.StatusForbidden, "the sign-out carries no valid CSRF token: sign out on the console's page")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: mountPath(r), MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

// mountPath returns the path the console is mounted at, which the sign-in
// cookie is scoped to: "/" at the root of its server, "/ops/console/" under
// http.StripPrefix("/ops/console", c). It is the request's path without the
// part the console routes by, or "/" when a handler in front rewrote the
// path some other way.
func mountPath(r *http.Request) string {
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil {
		return "/"
	}
	prefix, ok := strings.CutSuffix(u.Path, r.URL.Path)
	if !ok {
		return "/"
	}
	return prefix + "/"
}

// problem answers with the status and a JSON body {"error": message}.
func problem(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": message})
}
