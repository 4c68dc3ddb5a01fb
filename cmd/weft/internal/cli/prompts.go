package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

func newPrompts(e *env) *cobra.Command {
	var out outputFlags
	cmd := &cobra.Command{
		Use:   "prompts [URL] [-- COMMAND [ARGS...]]",
		Short: "List the prompts a server offers",
		Long:  "List the prompts a server offers, with their arguments (required ones marked *).\n\n" + targetHelp,
		Example: `  weft prompts http://127.0.0.1:8080/mcp
  weft prompts --json -- weft serve --stdio --store memory`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError("unexpected arguments %q; prompts takes only the server", rest)
			}
			return withSession(cmd.Context(), e, t, &out, client.Options{}, func(s *client.Session) error {
				list := []*mcp.Prompt{}
				if s.ServerCapabilities().Prompts != nil {
					var err error
					if list, err = collect(s.Prompts(cmd.Context()), "prompts"); err != nil {
						return err
					}
				}
				if !out.human(e) {
					return printJSON(e.stdout, struct {
						Prompts []*mcp.Prompt `json:"prompts"`
					}{list})
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "PROMPT\tARGUMENTS\tDESCRIPTION")
				for _, p := range list {
					var names []string
					for _, a := range p.Arguments {
						names = append(names, argName(a.Name, a.Required))
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, strings.Join(names, " "), oneLine(p.Description))
				}
				return tw.Flush()
			})
		}),
	}
	out.add(cmd)
	return cmd
}
