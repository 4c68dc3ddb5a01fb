// Package servermain is the entry point every benchmark server shares: it
// serves MCP over stdio by default, or Streamable HTTP at /mcp with -http ADDR.
package servermain

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Endpoint is the path every benchmark server serves Streamable HTTP on.
const Endpoint = "/mcp"

// shutdownGrace bounds how long an HTTP server waits for the requests it is
// serving to finish once it is told to stop; then it closes every connection.
const shutdownGrace = 2 * time.Second

// Server is one implementation's way of serving the echo tool.
type Server struct {
	// Name names the implementation in log lines.
	Name string
	// Stdio serves one MCP session on standard input and output until the
	// input ends or ctx is cancelled.
	Stdio func(ctx context.Context) error
	// HTTP returns the handler that serves Streamable HTTP at Endpoint.
	HTTP func() http.Handler
}

// Main parses the command line (the caller may define its own flags first),
// serves s until standard input ends (stdio) or SIGINT/SIGTERM arrives (HTTP),
// and exits non-zero with a logged reason if serving failed.
func Main(s Server) {
	addr := flag.String("http", "", "serve Streamable HTTP at "+Endpoint+" on this address (for example 127.0.0.1:8080) instead of stdio")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("server", s.Name)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error
	if *addr == "" {
		err = s.Stdio(ctx)
	} else {
		err = serveHTTP(ctx, *addr, s.HTTP())
	}
	if err != nil {
		logger.Error("serving failed", "err", err)
		stop()
		os.Exit(1)
	}
}

// serveHTTP serves handler at Endpoint on addr until ctx is cancelled, then
// shuts down gracefully, closing connections still open after shutdownGrace.
func serveHTTP(ctx context.Context, addr string, handler http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle(Endpoint, handler)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	failed := make(chan error, 1)
	go func() { failed <- srv.ListenAndServe() }()
	select {
	case err := <-failed:
		return fmt.Errorf("listen on %s: %w (is the address free and on this machine?)", addr, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if err != nil {
		return fmt.Errorf("shut down HTTP server: %w", err)
	}
	return nil
}
