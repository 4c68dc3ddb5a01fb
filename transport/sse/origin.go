package sse

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/weftmcp/weft/jsonrpc"
)

// OriginPolicy protects an HTTP endpoint against web pages of other sites:
// a page that calls the endpoint from the user's browser (cross-site
// requests), or that rebinds its own name to the address of a server on
// the user's machine (DNS rebinding). The rule, on every listener:
//
//   - A request with an Origin header is admitted only when that origin
//     names the local machine (http://localhost:5173, http://127.0.0.1,
//     http://[::1]:6274, any scheme and port) or is one of AllowedOrigins.
//     Any other origin, "null" included, is refused with 403, before the
//     request is served and without CORS headers. A request with more
//     than one Origin header is refused too.
//   - A request without Origin is not from a web page (browsers send it on
//     every cross-origin request and on every POST); it is admitted.
//   - On a loopback address, the Host header must also be a local name
//     (localhost, a loopback IP) or one of AllowedHosts: a rebinding page
//     sends its own name there.
//
// The zero value applies this rule with nothing further allowed.
type OriginPolicy struct {
	// AllowedHosts lists further accepted Host values, with or without a
	// port ("myhost" on any port, "myhost:8080" on that port only),
	// compared case-insensitively. Only a loopback listener checks Host.
	AllowedHosts []string
	// AllowedOrigins lists further accepted Origin values, written as
	// browsers send them: scheme://host[:port], with no path or trailing
	// slash (such as "https://app.example.com"), compared
	// case-insensitively. The pages of these origins may call the
	// endpoint from a browser.
	AllowedOrigins []string
	// Disabled turns the checks off. Only do this behind a proxy that
	// checks Host and Origin itself.
	Disabled bool
}

// Check returns an error saying what is wrong when r must be refused
// (with 403 Forbidden), and nil when it may proceed.
func (p *OriginPolicy) Check(r *http.Request) error {
	if p.Disabled {
		return nil
	}
	loopback := arrivedOnLoopback(r)
	if loopback && !isLocalHost(hostOnly(r.Host)) && !p.AllowsHost(r.Host) {
		return fmt.Errorf("host %q is not a local name, and this server listens on a loopback address: "+
			"add the name to the allowed hosts (OriginPolicy.AllowedHosts) if it is yours", r.Host)
	}
	origins := r.Header.Values("Origin")
	switch {
	case len(origins) == 0:
		return nil
	case len(origins) > 1:
		return fmt.Errorf("the request has %d Origin headers; a browser sends one", len(origins))
	case contains(p.AllowedOrigins, origins[0]) || isLocalOrigin(origins[0]):
		return nil
	}
	return fmt.Errorf("origin %q may not call this server: only pages of the local machine and of the allowed origins may; "+
		"add it to the allowed origins (OriginPolicy.AllowedOrigins; weft: --allow-origin) if it is yours", origins[0])
}

// Guard returns a handler that refuses a request the policy does not
// admit with 403 and a JSON-RPC error, and passes the others to next. Put
// it in front of middleware that answers before the endpoint does, such
// as the auth package's, so that a page of a foreign origin gets 403
// rather than the middleware's answer:
//
//	mux.Handle("/", opts.Origins.Guard(rs.Handler(h)))
func (p *OriginPolicy) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := p.Check(r); err != nil {
			forbid(w, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// forbid answers a request that an OriginPolicy refused: 403 Forbidden,
// with a JSON-RPC error response (id null; the code -32000 is one JSON-RPC
// leaves to implementations) whose message is err's. It sets no CORS
// header, so the page that sent the request cannot read it.
func forbid(w http.ResponseWriter, err error) {
	body, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jsonrpc.NullID, Error: jsonrpc.NewError(-32000, "%v", err)})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	w.Write(body)
}

// AllowsHost reports whether host (as in a Host header) is one of
// AllowedHosts: an entry with a port names that host and port, one without
// names the host on any port.
func (p *OriginPolicy) AllowsHost(host string) bool {
	return contains(p.AllowedHosts, host) || contains(p.AllowedHosts, hostOnly(host))
}

// isLocalOrigin reports whether origin (scheme://host[:port]) names the
// local machine.
func isLocalOrigin(origin string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme != "" && u.Host != "" && isLocalHost(u.Hostname())
}

// arrivedOnLoopback reports whether the connection that carried r was
// accepted on a loopback address.
func arrivedOnLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	if tcp, ok := addr.(*net.TCPAddr); ok {
		// Without formatting and parsing the address: 1,600 instructions
		// and an allocation per request (callgrind, on the bench's weft
		// server; docs/decisions.md, "Plain-call cost (issue 19)").
		return tcp.IP.IsLoopback()
	}
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// hostOnly strips the port from a Host header value.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// isLocalHost reports whether host (without port or brackets) names the
// local machine.
func isLocalHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// contains reports whether list holds s, ignoring case.
func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
