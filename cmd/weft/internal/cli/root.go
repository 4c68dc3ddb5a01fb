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
	// Libraries that log through slog's default (the task stores) follow
	// --log-level and -v too.
	slog.SetDefault(e.logger())
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
	root.PersistentFlags().VarP(verboseFlag{&e.logLevel}, "verbose", "v", "more diagnostics on stderr: -v for info (such as each task's changes), -vv for debug")
	root.PersistentFlags().Lookup("verbose").NoOptDefVal = "+"
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
	)
	return root
}

// version is the module version the binary was built from (see
// versionOf).
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}

// versionOf says which weft bi describes: the module's version when it was
// installed as a module (go install …@v1.2.3), else, for a build in a
// clone, "devel" with the commit it was built from (and "modified" when the
// work tree had changes) when the go command recorded it (it does not in
// a workspace), else "devel" and the Go version that built it.
func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		if bi.GoVersion == "" {
			return "devel"
		}
		return "devel (built with " + bi.GoVersion + ")"
	}
	v := "devel (commit " + rev[:min(12, len(rev))]
	if at != "" {
		v += " of " + at
	}
	if modified {
		v += ", modified"
	}
	return v + ")"
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

// verboseFlag is -v: each use lowers the log level by one step, from warn
// to info to debug.
type verboseFlag struct{ v *slog.LevelVar }

func (f verboseFlag) String() string { return "" }
func (f verboseFlag) Set(string) error {
	f.v.Set(max(f.v.Level()-4, slog.LevelDebug))
	return nil
}
func (f verboseFlag) Type() string { return "" }

// runE wraps a command's body: its error gets an exit code (classify).
func runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return classify(cmd.Context(), fn(cmd, args))
	}
}
