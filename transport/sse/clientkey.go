package sse

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"

	"github.com/weftmcp/weft/auth"
)

// ClientKey names the client a per-client limit counts r against: its
// principal (auth.PrincipalFrom) when it has one, else its remote IP
// address, an IPv6 address by its /64 prefix (the block one host is
// usually given, so one host cannot pass for many). Behind a reverse
// proxy every client has the proxy's address, so they count as one.
//
// The key reads well in a message: `principal "alice"`, `address
// 203.0.113.7`, `address 2001:db8:1:2::/64`.
func ClientKey(r *http.Request) string {
	if p := auth.PrincipalFrom(r.Context()); p != "" {
		return "principal " + strconv.Quote(p)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return "address " + host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		return "address " + netip.PrefixFrom(ip, 64).Masked().String()
	}
	return "address " + ip.String()
}
