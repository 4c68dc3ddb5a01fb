package websocket

import (
	"net"
	"net/http"
	"strconv"

	"github.com/weftmcp/weft/auth"
)

// clientKey names the client a per-client limit counts r against: its
// principal when the auth middleware authenticated one, else its remote
// address. Behind a reverse proxy every unauthenticated client has the
// proxy's address, so they count as one.
func clientKey(r *http.Request) string {
	if p := auth.PrincipalFrom(r.Context()); p != "" {
		return "principal " + strconv.Quote(p)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "address " + host
}
