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
	"runtime/pprof"
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
	// Setup, if set, runs once the command line is parsed, before serving.
	Setup func() error
	// Stdio serves one MCP session on standard input and output until the
	// input ends or ctx is cancelled.
	Stdio func(ctx context.Context) error
	// HTTP returns the handler that serves Streamable HTTP at Endpoint. If
	// the handler has a Shutdown(context.Context) error method, it is called
	// before the HTTP server shuts down, to end its long-lived streams.
	HTTP func() http.Handler
	// Teardown, if set, runs after serving ended, to release what Setup made.
	Teardown func(ctx context.Context) error
}

// shutdowner is an HTTP handler that must be told the server is stopping.
type shutdowner interface {
	Shutdown(ctx context.Context) error
}

// Main parses the command line (the caller may define its own flags first),
// serves s until standard input ends (stdio) or SIGINT/SIGTERM arrives (HTTP),
// and exits non-zero with a logged reason if serving failed. With
// -cpuprofile FILE it writes a CPU profile of the whole run to FILE.
func Main(s Server) {
	addr := flag.String("http", "", "serve Streamable HTTP at "+Endpoint+" on this address (for example 127.0.0.1:8080) instead of stdio")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("server", s.Name)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	err := serve(ctx, s, *addr, *cpuProfile)
	if err != nil {
		logger.Error("serving failed", "err", err)
		stop()
		os.Exit(1)
	}
}

// serve runs s as Main says, profiling when profile names a file.
func serve(ctx context.Context, s Server, addr, profile string) (err error) {
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return fmt.Errorf("create the CPU profile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("start the CPU profile: %w", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			err = errors.Join(err, f.Close())
		}()
	}
	if s.Setup != nil {
		if err := s.Setup(); err != nil {
			return err
		}
	}
	if addr == "" {
		err = s.Stdio(ctx)
	} else {
		err = serveHTTP(ctx, addr, s.HTTP())
	}
	if s.Teardown != nil {
		tctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		err = errors.Join(err, s.Teardown(tctx))
	}
	return err
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
	var herr error
	if h, ok := handler.(shutdowner); ok {
		herr = h.Shutdown(shutdownCtx)
	}
	err := srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if err = errors.Join(herr, err); err != nil {
		return fmt.Errorf("shut down HTTP server: %w", err)
	}
	return nil
}
