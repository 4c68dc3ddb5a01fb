package cli

import (
	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/cmd/weft/internal/demo"
)

func newDemo(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "See durable MCP tasks end to end, on this machine, in a few seconds",
		Long: `Start the example server on 127.0.0.1 over Streamable HTTP, with its tasks in
an SQLite file in a temporary folder, connect a client to it, and show the
whole story: the tools, a slow tool run as a task with live progress, a task
that asks the user a question (answered automatically), a task that is
cancelled, and a tool that fails. Then everything stops and the temporary
folder is removed.

On a terminal progress is drawn as live bars; elsewhere (CI, pipes) as plain
lines. It needs no network beyond loopback and exits 0 when all went as
described.`,
		Example: `  weft demo
  go run ./cmd/weft demo     # from a clone of the repository`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return demo.Run(cmd.Context(), demo.Config{Out: e.stdout, Terminal: e.terminal, Logger: e.logger()})
		}),
	}
}
