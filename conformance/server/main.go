package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "conformance server:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fl := flag.NewFlagSet("server", flag.ContinueOnError)
	httpAddr := fl.String("http", "", "serve Streamable HTTP on this loopback address (e.g. 127.0.0.1:0), at /mcp")
	stdio := fl.Bool("stdio", false, "serve on stdin/stdout")
	readyFile := fl.String("ready-file", "", "with -http, write the endpoint URL to this file once listening")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if (*httpAddr == "") == !*stdio {
		return errors.New("give exactly one of -http ADDR or -stdio")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s := newServer(logger)
	if *stdio {
		return s.Run(ctx, transport.Stdio())
	}
	return serveHTTP(ctx, s, *httpAddr, *readyFile, logger)
}

// serveHTTP serves the fixture server s on addr until ctx ends. It refuses
// anything but a loopback address: the fixture is for local test runs only.
func serveHTTP(ctx context.Context, s *server.Server, addr, readyFile string, logger *slog.Logger) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-http %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-http %q: give a loopback IP address such as 127.0.0.1; the fixture server must not be reachable from other machines", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := streamable.NewHandler(s, &streamable.HandlerOptions{
		// The reference fixture advises a 5 s retry; run.sh only needs the
		// client to resume quickly in server-sse-polling.
		RetryInterval: 500 * time.Millisecond,
		// The suite's three server runs open every session from one
		// address and end few of them.
		MaxSessionsPerClient: -1,
		Logger:               logger,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	url := "http://" + ln.Addr().String() + "/mcp"
	if readyFile != "" {
		if err := writeFileAtomic(readyFile, url+"\n"); err != nil {
			ln.Close()
			return fmt.Errorf("writing -ready-file: %w", err)
		}
	}
	fmt.Println(url)

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.Shutdown(shutdown); err != nil {
		logger.Warn("ending MCP streams", "error", err)
	}
	return hs.Shutdown(shutdown)
}

// writeFileAtomic writes data to path through a temporary file, so a reader
// never sees it half written.
func writeFileAtomic(path, data string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ready-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// serverInfo is how the fixture introduces itself.
var serverInfo = mcp.Implementation{Name: "weft-conformance-server", Version: "1.0.0"}

// newServer returns a server with every fixture of the suite registered.
func newServer(logger *slog.Logger) *server.Server {
	s := server.New(serverInfo, &server.Options{
		Logger:    logger,
		ListCache: server.CacheHint{TTL: 5 * time.Minute, Scope: mcp.CachePublic},
		Tasks:     newTaskRuntime(logger),
	})
	addContentTools(s)
	addNotifyingTools(s)
	addAskingTools(s)
	addInputRequiredTools(s)
	addInputRequiredPrompt(s)
	addModernTools(s)
	addTaskTools(s)
	addReconnectionTool(s)
	addCustomHeaderTool(s)
	addResources(s)
	addPrompts(s)
	s.SetCompletionHandler(complete)
	return s
}
