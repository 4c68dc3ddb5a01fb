package fetch

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CheckSecureURL reports whether raw is an absolute https URL, or an http
// URL whose host is a loopback address or "localhost" (for development).
// OAuth 2.1 requires every authorization server endpoint to use TLS; what
// names the URL in an error message.
func CheckSecureURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s %q is not a URL: %w", what, raw, err)
	}
	if u.Host == "" {
		return fmt.Errorf("%s %q is not an absolute URL", what, raw)
	}
	if u.Fragment != "" {
		return fmt.Errorf("%s %q must not have a fragment", what, raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if IsLoopbackHost(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("%s %q must use https (plain http is only allowed on localhost)", what, raw)
}

// IsLoopbackHost reports whether host (without port) is "localhost" or a
// loopback IP address.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
