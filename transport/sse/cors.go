package sse

import (
	"net/http"
	"strings"
)

// CORS lets pages served from other origins (a browser-based MCP client such
// as the Inspector) use an endpoint whose OriginPolicy admits their origin.
// MCP credentials travel in headers the page sets itself, never in cookies,
// so the endpoint grants no credentials (Access-Control-Allow-Credentials is
// never sent).

// AllowCORS sets the CORS headers of the response to r, which has passed
// the policy's Check: the origin is allowed, and expose names the response
// headers the page may read (for MCP: the session ID, the protocol version
// and the authorization challenge). It does nothing for a request without
// an Origin.
func AllowCORS(w http.ResponseWriter, r *http.Request, expose string) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if expose != "" {
		h.Set("Access-Control-Expose-Headers", expose)
	}
}

// ServeOptions answers an OPTIONS request to an endpoint taking methods: a
// CORS preflight (from an origin that passed the policy's Check) gets the
// methods and the headers it asked to send, and is cached by the browser
// for ten minutes; any OPTIONS gets the Allow header. It answers 204.
func ServeOptions(w http.ResponseWriter, r *http.Request, methods string) {
	h := w.Header()
	h.Set("Allow", methods+", OPTIONS")
	if r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != "" {
		AllowCORS(w, r, "")
		h.Set("Access-Control-Allow-Methods", methods)
		if asked := requestedHeaders(r); asked != "" {
			h.Set("Access-Control-Allow-Headers", asked)
		}
		h.Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
}

// requestedHeaders returns the header names a preflight asks to send, each
// a valid field name, comma-separated.
func requestedHeaders(r *http.Request) string {
	var names []string
	for _, v := range r.Header.Values("Access-Control-Request-Headers") {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" && isToken(n) {
				names = append(names, n)
			}
		}
	}
	return strings.Join(names, ", ")
}

// isToken reports whether s is an HTTP token (RFC 9110 section 5.6.2), as
// header field names are.
func isToken(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
