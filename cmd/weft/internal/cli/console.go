package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/cmd/weft/internal/store"
	"github.com/weftmcp/weft/console"
	"github.com/weftmcp/weft/transport/sse"
)

// consoleUsage is the help of --console.
const consoleUsage = "serve the live task console at http://HOST:PORT/: every task in the store, on every server sharing it, " +
	"updated as it changes, with its input, outcome and audit trail, and a cancel button. It listens apart from the MCP endpoint, " +
	"on a loopback address (127.0.0.1:8081) unless --auth-issuer is set, which makes it require a token granting --console-scope"

// consoleEndpoint is the task console of a server command (--console); a
// nil *consoleEndpoint (no --console) serves nothing.
type consoleEndpoint struct {
	addr   string
	scope  string
	audit  *console.AuditRecorder
	srv    *http.Server
	served chan error
}

// newConsoleEndpoint checks --console and --console-scope and returns the
// endpoint (nil without --console) and the logger the task runtime should
// log to: logger's handler, wrapped to keep the audit events the console
// shows.
func newConsoleEndpoint(addr, scope string, logger *slog.Logger) (*consoleEndpoint, *slog.Logger, error) {
	if addr == "" {
		if scope != console.DefaultAdminScope {
			return nil, nil, usageError("--console-scope needs --console")
		}
		return nil, logger, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, nil, usageError("--console %q is not HOST:PORT (for example 127.0.0.1:8081): %v", addr, err)
	}
	if scope == "" {
		return nil, nil, usageError("--console-scope is empty: give the scope an operator's token must grant")
	}
	audit := console.NewAuditRecorder(logger.Handler(), 0, 0)
	return &consoleEndpoint{addr: addr, scope: scope, audit: audit}, slog.New(audit), nil
}

// start serves the console over the runtime. With a verifier every
// request needs a token; without one the console must listen on a
// loopback address. csrfKey, the request-state key of servers sharing a
// store, makes their consoles' CSRF tokens alike (nil: a random one).
func (c *consoleEndpoint) start(rt *store.Runtime, verifier auth.Verifier, origins sse.OriginPolicy, csrfKey []byte, stderr io.Writer, logger *slog.Logger) error {
	if c == nil {
		return nil
	}
	h, err := console.New(console.Options{Runtime: rt.Runtime, Store: rt.Store.Store, Bus: rt.Store.Bus,
		Verifier: verifier, AdminScope: c.scope, Origins: origins, Audit: c.audit, Logger: logger, CSRFKey: csrfKey})
	if err != nil {
		return fmt.Errorf("--console: %w", err)
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("--console: listening on %s: %w; pick another address or port", c.addr, err)
	}
	if ap, err := netip.ParseAddrPort(ln.Addr().String()); verifier == nil && (err != nil || !ap.Addr().Unmap().IsLoopback()) {
		ln.Close()
		return usageError("--console %s is not a loopback address, and without --auth-issuer the console requires no token: "+
			"anyone who reached it could see and cancel every task. Use a loopback address (127.0.0.1:8081), or set --auth-issuer", c.addr)
	}
	c.served = make(chan error, 1)
	c.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { c.served <- c.srv.Serve(ln) }()
	how := "no token needed on this loopback address"
	if verifier != nil {
		how = "tokens must grant " + c.scope
	}
	fmt.Fprintf(stderr, "weft: serving the task console at http://%s/ (%s)\n", ln.Addr(), how)
	return nil
}

// Close stops serving the console, ending its event streams.
func (c *consoleEndpoint) Close() error {
	if c == nil || c.srv == nil {
		return nil
	}
	err := c.srv.Close()
	if serr := <-c.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
