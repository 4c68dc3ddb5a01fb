package cli

import (
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

func newTools(e *env) *cobra.Command {
	var out outputFlags
	cmd := &cobra.Command{
		Use:   "tools [URL] [-- COMMAND [ARGS...]]",
		Short: "List the tools a server offers",
		Long: `List the tools a server offers. A 2025-11-25 server also says whether each
may run as a task; from 2026-07-28 on the server decides per call.

` + targetHelp,
		Example: `  weft tools http://127.0.0.1:8080/mcp
  weft tools --json -- weft serve --stdio --store memory
  weft tools -- npx -y @modelcontextprotocol/server-everything`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError("unexpected arguments %q; tools takes only the server", rest)
			}
			return withSession(cmd.Context(), e, t, &out, client.Options{}, func(s *client.Session) error {
				list := []*mcp.Tool{}
				for tool, err := range s.Tools(cmd.Context()) {
					if err != nil {
						return protocolError("listing tools", err)
					}
					list = append(list, tool)
				}
				if !out.human(e) {
					return printJSON(e.stdout, struct {
						Tools []*mcp.Tool `json:"tools"`
					}{list})
				}
				// 2025-11-25 lists each tool's task support; later versions
				// let the server decide per call, and list none.
				tasks := slices.ContainsFunc(list, func(t *mcp.Tool) bool { return t.Execution != nil })
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				if tasks {
					fmt.Fprintln(tw, "TOOL\tTASKS\tDESCRIPTION")
				} else {
					fmt.Fprintln(tw, "TOOL\tDESCRIPTION")
				}
				for _, tool := range list {
					if tasks {
						fmt.Fprintf(tw, "%s\t%s\t%s\n", tool.Name, tool.TaskSupport(), oneLine(tool.Description))
					} else {
						fmt.Fprintf(tw, "%s\t%s\n", tool.Name, oneLine(tool.Description))
					}
				}
				return tw.Flush()
			})
		}),
	}
	out.add(cmd)
	return cmd
}
