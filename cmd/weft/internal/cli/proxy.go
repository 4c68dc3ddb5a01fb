package cli

import (
	"context"
	"fmt"
	"os/exec"
	"sync"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/cmd/weft/internal/proxy"
	"github.com/weftmcp/weft/cmd/weft/internal/store"
	"github.com/weftmcp/weft/transport"
)

func newProxy(e *env) *cobra.Command {
	var f listenFlags
	cmd := &cobra.Command{
		Use:   "proxy [--http ADDR] [--store STORE] -- COMMAND [ARGS...]",
		Short: "Serve a stdio MCP server, with tasks for every tool, over stdio or Streamable HTTP",
		Long: `Start COMMAND, an MCP server speaking stdio, and serve its tools, resources
and prompts in every protocol version: on weft's own stdin and stdout by
default (so an MCP host can start "weft proxy -- COMMAND" in place of
COMMAND), or over Streamable HTTP at /mcp with --http. Every tool may run
as a task: a long call of any existing server becomes durable,
pollable and cancellable, and cancelling the task cancels the call on the
wrapped server. Progress and the wrapped server's questions (elicitation,
sampling) reach the client whose call they belong to.

Tasks are kept in the store (--store), by default an SQLite file of this
endpoint's own in your data folder, named after the address (or stdio) and
the wrapped command, so they outlive the proxy.

Proxies on the same store share their tasks (see weft serve --help for
--instance and --lease). A proxied call is not known to be safe to repeat,
so the task of a proxy that is lost is not run again: another proxy fails
it, saying so.

The proxy stops when the wrapped server exits, and on SIGINT or SIGTERM.

` + httpSafetyHelp,
		Example: `  weft proxy -- npx -y @modelcontextprotocol/server-everything
  weft tools -- weft proxy --store memory -- weft serve --stdio
  weft proxy --http 127.0.0.1:9000 --store memory -- weft serve --stdio
  weft proxy --store sqlite:./proxy-tasks.db -- python my_server.py`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash != 0 || len(args) == 0 {
				return usageError(`give the wrapped server's command line after "--", as in: weft proxy -- weft serve --stdio`)
			}
			if err := checkTaskLimits(f.settings); err != nil {
				return err
			}
			ctx, cancel := context.WithCancelCause(cmd.Context())
			defer cancel(nil)
			logger := e.logger()
			f.stdio = f.http == ""
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
			rt, err := store.OpenRuntime(ctx, f.store, store.EndpointFile("proxy", f.http, args), f.settings, rtLogger)
			if err != nil {
				return err
			}
			closeRuntime := sync.OnceValue(rt.Close)
			defer closeRuntime()
			defer con.Close()
			opts := rt.ServerOptions(logger)
			if err := f.shareSessions(ctx, rt.Store, opts); err != nil {
				return err
			}
			stream, err := transport.NewCommand(exec.Command(args[0], args[1:]...), transport.WithStderr(e.stderr), transport.WithGracePeriod(stdioGrace))
			if err != nil {
				return err
			}
			p, err := proxy.Connect(ctx, stream, met.instrument(opts))
			if err != nil {
				return err
			}
			defer p.Close()
			// Before the wrapped server goes: its running calls get the
			// runtime's grace, then their tasks are released for recovery,
			// instead of failing at once on a closed connection.
			defer closeRuntime()
			go func() {
				err := p.Wrapped().Wait()
				cancel(fmt.Errorf("the wrapped server %s ended (%v); the proxy stops with it", args[0], err))
			}()
			err = serveServer(ctx, e, p.Server(), &f, rt, con, logger)
			if cause := context.Cause(ctx); err == nil && cmd.Context().Err() == nil && cause != nil {
				return cause
			}
			return err
		}),
	}
	f.add(cmd, false)
	return cmd
}
