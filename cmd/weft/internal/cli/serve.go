package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/cmd/weft/internal/example"
	"github.com/weftmcp/weft/cmd/weft/internal/httpserve"
	"github.com/weftmcp/weft/cmd/weft/internal/store"
	"github.com/weftmcp/weft/console"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/sse"
)

// listenFlags choose how a server command is reached.
type listenFlags struct {
	http      string
	stdio     bool
	readyFile string
	metrics   string // --metrics: where to serve Prometheus metrics
	// console and consoleScope: where to serve the task console
	// (--console), and the scope its tokens must grant.
	console      string
	consoleScope string
	store        string
	settings     store.Settings
	// authIssuer, when set, protects the HTTP endpoint with OAuth: tokens
	// are JWTs from this issuer for the endpoint's URL.
	authIssuer string
	authScopes []string
	// authAnyType accepts tokens not typed at+jwt (auth.JWTOptions.AcceptAnyType).
	authAnyType bool

	// endpoint holds the HTTP endpoint's origins, limits and timeouts.
	endpoint httpFlags
	// sessionSecret signs request state (see shareSessions); sessions
	// keeps the legacy sessions, nil for this process only; messages and
	// bus route their messages between the servers sharing them.
	sessionSecret string
	sessions      sessions.Store
	messages      sessions.MessageLog
	bus           tasks.Bus
	// stateKey is the request-state key shareSessions settled on (nil for
	// none): the console derives its CSRF token from it, so that the
	// consoles of servers sharing a store take each other's pages' actions.
	stateKey []byte
}

// add declares the flags on cmd; withStdio adds --stdio.
func (f *listenFlags) add(cmd *cobra.Command, withStdio bool) {
	cmd.Flags().StringVar(&f.http, "http", "", "serve Streamable HTTP on this address (HOST:PORT; port 0 picks a free one), at /mcp")
	f.endpoint.add(cmd)
	f.addSessionFlags(cmd)
	if withStdio {
		cmd.Flags().BoolVar(&f.stdio, "stdio", false, "serve one client on stdin and stdout")
	}
	cmd.Flags().StringVar(&f.authIssuer, "auth-issuer", "",
		"with --http, require OAuth access tokens: JWTs from the authorization server with this issuer URL, for the endpoint's URL (clients discover it in the endpoint's protected resource metadata)")
	cmd.Flags().StringSliceVar(&f.authScopes, "auth-scope", nil, "with --auth-issuer, a scope every request's token must grant (repeat, or separate with commas)")
	cmd.Flags().BoolVar(&f.authAnyType, "auth-any-token-type", false,
		`with --auth-issuer, accept tokens whatever their JOSE typ header says; by default they must be typed "at+jwt" (RFC 9068), which some issuers do not do`)
	cmd.Flags().StringVar(&f.metrics, "metrics", "", metricsUsage)
	cmd.Flags().StringVar(&f.console, "console", "", consoleUsage)
	cmd.Flags().StringVar(&f.consoleScope, "console-scope", console.DefaultAdminScope,
		"with --console and --auth-issuer, the scope an operator's token must grant to use the console")
	cmd.Flags().StringVar(&f.readyFile, "ready-file", "", "with --http, write the endpoint's URL to this file once listening (for scripts)")
	cmd.Flags().StringVar(&f.store, "store", "", store.Usage+store.DefaultUsage(cmd.Name()))
	cmd.Flags().StringVar(&f.settings.Instance, "instance", "",
		"this server's name among the servers sharing the store: the owner of the tasks it runs, shown in logs and in the message of a task failed because this server was lost (default: random)")
	cmd.Flags().DurationVar(&f.settings.Lease, "lease", 0,
		fmt.Sprintf("how long the lease on a running task lasts unrenewed: this server renews its leases every third of it and looks for lapsed ones as often (at least every 5s), so another server sharing the store recovers the tasks of a lost one within 4/3 of it; at least %v (default %v)", store.MinLease, tasks.DefaultLease))
	addTaskLimitFlags(cmd, &f.settings)
}

func newServe(e *env) *cobra.Command {
	var f listenFlags
	cmd := &cobra.Command{
		Use:   "serve (--http ADDR | --stdio) [--store STORE] [--instance NAME] [--lease DURATION]",
		Short: "Serve the example server: echo, sleep, confirm, fail, once and touch",
		Long: `Serve the example MCP server over Streamable HTTP (every protocol version on
one endpoint, /mcp) or stdio. Its tools:

  echo {text}         returns the text
  sleep {seconds}     sleeps, reporting progress every second; may run as a task
  confirm {question}  asks the user through the client (elicitation); may run as a task
  fail {message}      returns a tool error
  once {seconds}      sleeps as sleep does; may run as a task, which is never run twice
  touch {uri} [list]  tells the clients subscribed to the resource that it changed;
                      with list, every client that the resource list changed

Tasks are kept in the store (--store), by default an SQLite file of this
endpoint's own in your data folder (serve-127.0.0.1-8080.db for
--http 127.0.0.1:8080, serve-stdio.db for --stdio), so they outlive the
process. SIGINT or SIGTERM stops the server
gracefully: calls in flight get a few seconds to finish.

Servers on the same SQLite file or Redis share their tasks: any of them reads,
answers or cancels a task another runs. Each holds a lease on the tasks it
runs (--lease); when a server is lost (killed, hung, cut off from the store),
another notices its lapsed leases and runs its sleep and confirm tasks again
(replaying the answers already given), while a once task fails, saying that
its server was lost. Give each server its own --instance name.

` + httpSafetyHelp,
		Example: `  weft serve --http 127.0.0.1:8080
  weft serve --http 127.0.0.1:8080 --store memory
  weft serve --http 0.0.0.0:8080 --store redis://127.0.0.1:6379/0 --instance "$(hostname)" --lease 10s
  weft serve --http 0.0.0.0:8080 --allow-origin https://app.example.com --max-sessions-per-client 20
  weft serve --stdio --store sqlite:./tasks.db
  weft serve --http 127.0.0.1:8080 --metrics 127.0.0.1:9464`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if (f.http == "") == !f.stdio {
				return usageError("give exactly one of --http ADDR or --stdio")
			}
			if err := checkTaskLimits(f.settings); err != nil {
				return err
			}
			logger := e.logger()
			met, err := startMetrics(f.metrics, e.stderr, logger)
			if err != nil {
				return err
			}
			defer met.Close()
			f.settings.Observer = met.observer()
			con, rtLogger, err := newConsoleEndpoint(f.console, f.consoleScope, logger)
			if err != nil {
				return err
			}
			rt, err := store.OpenRuntime(cmd.Context(), f.store, store.EndpointFile("serve", f.http, nil), f.settings, rtLogger)
			if err != nil {
				return err
			}
			defer rt.Close()
			defer con.Close()
			opts := rt.ServerOptions(logger)
			if err := f.shareSessions(cmd.Context(), rt.Store, opts); err != nil {
				return err
			}
			srv := example.New(met.instrument(opts))
			return serveServer(cmd.Context(), e, srv, &f, rt, con, logger)
		}),
	}
	f.add(cmd, true)
	return cmd
}

// serveServer serves srv as the flags say until ctx ends or, for stdio,
// the client leaves.
func serveServer(ctx context.Context, e *env, srv *server.Server, f *listenFlags, rt *store.Runtime, con *consoleEndpoint, logger *slog.Logger) error {
	if f.stdio {
		if f.authIssuer != "" {
			return usageError("--auth-issuer protects an HTTP endpoint; it needs --http, not --stdio")
		}
		if err := con.start(rt, nil, sse.OriginPolicy{}, f.stateKey, e.stderr, logger); err != nil {
			return err
		}
		return serveStdio(ctx, srv)
	}
	opts, err := f.endpoint.options()
	if err != nil {
		return err
	}
	opts.Handler.Sessions, opts.Handler.Messages, opts.Handler.Bus = f.sessions, f.messages, f.bus
	ln, err := httpserve.Listen(f.http)
	if err != nil {
		return err
	}
	url := httpserve.URL(ln)
	protect, verifier, err := f.protection(url, logger)
	if err != nil {
		ln.Close()
		return err
	}
	if err := con.start(rt, verifier, opts.Handler.Origins, f.stateKey, e.stderr, logger); err != nil {
		ln.Close()
		return err
	}
	if f.readyFile != "" {
		if err := writeFileAtomic(f.readyFile, url+"\n"); err != nil {
			ln.Close()
			return fmt.Errorf("writing --ready-file: %w", err)
		}
	}
	fmt.Fprintf(e.stderr, "weft: serving MCP at %s (tasks in %s); stop with Ctrl-C\n", url, rt.Store.Description)
	if err := httpserve.Serve(ctx, srv, ln, logger, protect, opts); err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, "weft: stopped")
	return nil
}

// protection returns the OAuth resource server that --auth-issuer asks
// for, for the endpoint at resource, and the verifier of its tokens (which
// the console uses too); nil without the flag.
func (f *listenFlags) protection(resource string, logger *slog.Logger) (func(http.Handler) http.Handler, auth.Verifier, error) {
	switch {
	case f.authIssuer == "" && len(f.authScopes) > 0:
		return nil, nil, usageError("--auth-scope needs --auth-issuer")
	case f.authIssuer == "" && f.authAnyType:
		return nil, nil, usageError("--auth-any-token-type needs --auth-issuer")
	case f.authIssuer == "":
		return nil, nil, nil
	}
	verifier, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: f.authIssuer, Audience: resource, AcceptAnyType: f.authAnyType})
	if err != nil {
		return nil, nil, usageError("--auth-issuer: %v", err)
	}
	rs, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{f.authIssuer}, Verifier: verifier,
		Scopes: f.authScopes, ResourceName: "weft", Logger: logger})
	if err != nil {
		return nil, nil, usageError("--auth-issuer: %v", err)
	}
	return rs.Handler, verifier, nil
}

// serveStdio serves one client on stdin and stdout until it leaves or ctx
// ends (a signal, the usual way to stop a server). Then the session is
// closed: its handlers are cancelled and stdout is closed, so the client
// sees the end. Closing waits for the read of stdin to end, which a
// blocking stdin cannot be made to do; after stdioGrace the command
// returns anyway, and the process's exit ends that read.
func serveStdio(ctx context.Context, srv *server.Server) error {
	ss, err := srv.Connect(ctx, transport.Stdio(), nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
	}
	closed := make(chan error, 1)
	go func() { closed <- ss.Close() }()
	t := time.NewTimer(stdioGrace)
	defer t.Stop()
	select {
	case err := <-closed:
		return err
	case <-t.C:
		return nil
	}
}

// writeFileAtomic writes data to path through a temporary file, so a reader
// never sees it half written.
func writeFileAtomic(path, data string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".weft-ready-*")
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
