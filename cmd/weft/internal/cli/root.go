package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Main runs the weft command line with args (without the program name)
// and returns the process's exit code. SIGINT and SIGTERM cancel the
// running command, which then stops gracefully.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := newEnv()
	root := newRoot(e)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "weft: %v\n", err)
		if exitCode(err) == ExitUsage {
			fmt.Fprintln(e.stderr, "Run 'weft --help' or 'weft COMMAND --help' for usage and examples.")
		}
	}
	return exitCode(err)
}

// newRoot builds the command tree.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "weft",
		Short: "MCP servers, clients and proxies with durable tasks",
		Long: `weft serves, proxies and calls Model Context Protocol (MCP) servers, with
long calls running as durable, pollable, cancellable tasks.

A client command reaches its server either by URL (Streamable HTTP), given as
its first argument, or by a command line after "--" that starts a server
speaking stdio.

On a terminal, output is for people (tables, text, live progress bars) and
questions from the server are asked interactively; otherwise, or with --json,
every command prints JSON only.

` + exitCodesHelp,
		Example: `  weft demo
  weft serve --http 127.0.0.1:8080
  weft tools http://127.0.0.1:8080/mcp
  weft call http://127.0.0.1:8080/mcp sleep seconds=5 --task
  weft proxy --http 127.0.0.1:8081 -- npx -y @modelcontextprotocol/server-everything`,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError("%v", err) })
	root.PersistentFlags().Var(levelFlag{&e.logLevel}, "log-level", "diagnostics on stderr at this level and above: debug, info, warn or error")
	root.AddCommand(
		newDemo(e),
		newServe(e),
		newProxy(e),
		newTools(e),
		newCall(e),
		newResources(e),
		newRead(e),
		newPrompts(e),
		newPrompt(e),
		newTasks(e),
		newSkills(e),
	)
	return root
}

// version is the module version the binary was built from, or "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// levelFlag is --log-level.
type levelFlag struct{ v *slog.LevelVar }

func (f levelFlag) String() string {
	if f.v == nil {
		return "warn"
	}
	return strings.ToLower(f.v.Level().String())
}
func (f levelFlag) Set(s string) error { return f.v.UnmarshalText([]byte(s)) }
func (f levelFlag) Type() string       { return "level" }

// runE wraps a command's body: its error gets an exit code (classify).
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return classify(cmd.Context(), fn(cmd, args))
	}
}
