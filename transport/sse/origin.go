package sse

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// OriginPolicy protects an HTTP endpoint against DNS rebinding: a web page
// on another site that makes the browser send requests to a server
// listening on the local machine.
//
// When the request arrived on a loopback address, its Host must be a
// local name (localhost, a loopback IP) or one of AllowedHosts, and its
// Origin, when present, must name a local host or be one of AllowedOrigins.
// On other addresses only the Origin is checked, and only against a
// non-empty AllowedOrigins.
type OriginPolicy struct {
	// AllowedHosts lists further accepted Host values, with or without a
	// port ("myhost", "myhost:8080"), compared case-insensitively.
	AllowedHosts []string
	// AllowedOrigins lists further accepted Origin values, such as
	// "https://app.example.com", compared case-insensitively.
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
	if loopback && !isLocalHost(hostOnly(r.Host)) && !contains(p.AllowedHosts, r.Host) {
		return fmt.Errorf("host %q is not a local name, and this server listens on a loopback address: "+
			"add the name to AllowedHosts if it is yours", r.Host)
	}
	origin := r.Header.Get("Origin")
	switch {
	case origin == "" || contains(p.AllowedOrigins, origin):
		return nil
	case loopback:
		if u, err := url.Parse(origin); err == nil && u.Host != "" && isLocalHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("origin %q is not a local origin, and this server listens on a loopback address: "+
			"add it to AllowedOrigins if it is yours", origin)
	case len(p.AllowedOrigins) > 0:
		return fmt.Errorf("origin %q is not one of the allowed origins", origin)
	}
	return nil
}

// arrivedOnLoopback reports whether the connection that carried r was
// accepted on a loopback address.
func arrivedOnLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
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
