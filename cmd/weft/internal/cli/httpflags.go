package cli

import (
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/cmd/weft/internal/httpserve"
	"github.com/weftmcp/weft/transport/streamable"
)

// httpFlags choose who may call an HTTP endpoint and how much one client,
// and all of them, may hold of it.
type httpFlags struct {
	allowOrigins         []string
	maxSessions          int
	maxSessionsPerClient int
	sessionIdleTimeout   time.Duration
	readTimeout          time.Duration
	idleTimeout          time.Duration
}

// add declares the flags on cmd, with the library's defaults.
func (f *httpFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.allowOrigins, "allow-origin", nil,
		"with --http, let web pages of this origin (scheme://host[:port], as browsers send it) call the endpoint; repeat for more. Pages of this machine (localhost, 127.0.0.1, [::1]) always may; a request with any other Origin gets 403, on every address")
	fl.IntVar(&f.maxSessions, "max-sessions", streamable.DefaultMaxSessions,
		"the most legacy sessions (protocol 2025-11-25 and older) the server holds; an initialize past it gets 503; -1 for no limit")
	fl.IntVar(&f.maxSessionsPerClient, "max-sessions-per-client", streamable.DefaultMaxSessionsPerClient,
		"the most legacy sessions one client (one --auth-issuer principal, else one remote address) holds; an initialize past it gets 429. Behind a reverse proxy every client has its address: authenticate them, or raise this; -1 for no limit")
	fl.DurationVar(&f.sessionIdleTimeout, "session-idle-timeout", streamable.DefaultSessionIdleTimeout,
		"end a legacy session idle for this long: the way sessions clients abandon without DELETE are reclaimed; -1s never ends them")
	fl.DurationVar(&f.readTimeout, "read-timeout", streamable.DefaultReadTimeout,
		"close a connection whose request (headers and body) has not arrived within this time; SSE responses are not cut; -1s for no bound")
	fl.DurationVar(&f.idleTimeout, "idle-timeout", streamable.DefaultIdleTimeout,
		"close a keep-alive connection idle for this long")
}

// options checks the flags and returns the endpoint's settings.
func (f *httpFlags) options() (httpserve.Options, error) {
	for _, o := range f.allowOrigins {
		if u, err := url.Parse(o); err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return httpserve.Options{}, usageError("--allow-origin %q is not an origin: give scheme://host[:port], such as https://app.example.com", o)
		}
	}
	switch {
	case f.maxSessions == 0 || f.maxSessions < -1:
		return httpserve.Options{}, usageError("--max-sessions %d: give at least 1, or -1 for no limit", f.maxSessions)
	case f.maxSessionsPerClient == 0 || f.maxSessionsPerClient < -1:
		return httpserve.Options{}, usageError("--max-sessions-per-client %d: give at least 1, or -1 for no limit", f.maxSessionsPerClient)
	case f.sessionIdleTimeout == 0:
		return httpserve.Options{}, usageError("--session-idle-timeout 0: give a duration such as 30m, or -1s to keep idle sessions")
	case f.readTimeout == 0:
		return httpserve.Options{}, usageError("--read-timeout 0: give a duration such as 30s, or -1s for no bound")
	case f.idleTimeout <= 0:
		return httpserve.Options{}, usageError("--idle-timeout %v: give a duration such as 2m", f.idleTimeout)
	}
	var o httpserve.Options
	o.Handler.Origins.AllowedOrigins = f.allowOrigins
	o.Handler.MaxSessions = f.maxSessions
	o.Handler.MaxSessionsPerClient = f.maxSessionsPerClient
	o.Handler.SessionIdleTimeout = f.sessionIdleTimeout
	o.Server.ReadTimeout = f.readTimeout
	o.Server.IdleTimeout = f.idleTimeout
	return o, nil
}

// httpSafetyHelp is the paragraph of a server command's help on what keeps
// its HTTP endpoint safe, with the defaults.
var httpSafetyHelp = fmt.Sprintf(`Over HTTP, web pages of other sites are kept out: a request whose Origin
header names neither this machine nor an --allow-origin gets 403, whatever
address the server listens on; requests without Origin (from programs, not
browsers) are served. One client, an --auth-issuer principal or else a
remote address, may hold at most %d (--max-sessions-per-client) of the
server's %d legacy sessions (--max-sessions); a session idle for %v ends
(--session-idle-timeout). A connection whose request has not arrived
within %v is closed (--read-timeout), and a keep-alive one idle for %v
(--idle-timeout); SSE streams are not cut.`,
	streamable.DefaultMaxSessionsPerClient, streamable.DefaultMaxSessions, streamable.DefaultSessionIdleTimeout,
	streamable.DefaultReadTimeout, streamable.DefaultIdleTimeout)
