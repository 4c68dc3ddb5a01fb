package httpserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
)

// Path is where the MCP endpoint is mounted.
const Path = "/mcp"

// ShutdownTimeout bounds a graceful shutdown: requests in flight get this
// long to finish before their contexts are cancelled.
const ShutdownTimeout = 10 * time.Second

// Listen opens a TCP listener on addr ("HOST:PORT"; port 0 picks a free
// one), with an error that says what to do when it fails.
func Listen(addr string) (net.Listener, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("--http %q is not HOST:PORT (for example 127.0.0.1:8080): %w", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w; pick another address or port", addr, err)
	}
	return ln, nil
}

// URL is the MCP endpoint's URL on ln.
func URL(ln net.Listener) string {
	return "http://" + ln.Addr().String() + Path
}

// Options are the endpoint's safety settings; the zero value has the
// library's defaults.
type Options struct {
	// Handler holds the allowed origins and the session limits; its
	// Logger is Serve's.
	Handler streamable.HandlerOptions
	// Server holds the connection timeouts.
	Server streamable.HTTPServerOptions
}

// Serve serves srv at Path on ln until ctx ends, then shuts down: new
// requests are refused, open streams end, and requests in flight get
// ShutdownTimeout to finish. It closes ln. The error is nil after a clean
// shutdown. protect, when not nil, wraps what is served (with an OAuth
// resource server's Handler, say), behind the Origin check.
func Serve(ctx context.Context, srv *server.Server, ln net.Listener, logger *slog.Logger, protect func(http.Handler) http.Handler, opts Options) error {
	hopts := opts.Handler
	hopts.Logger = logger
	h := streamable.NewHandler(srv, &hopts)
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	var root http.Handler = mux
	if protect != nil {
		root = hopts.Origins.Guard(protect(mux))
	}
	hs := streamable.NewHTTPServer(root, &opts.Server)
	hs.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	herr := h.Shutdown(stop)
	serr := hs.Shutdown(stop)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return errors.Join(herr, serr)
}
