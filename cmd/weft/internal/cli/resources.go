package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

func newResources(e *env) *cobra.Command {
	var out outputFlags
	cmd := &cobra.Command{
		Use:   "resources [URL] [-- COMMAND [ARGS...]]",
		Short: "List the resources and resource templates a server offers",
		Long:  "List the resources and resource templates a server offers.\n\n" + targetHelp,
		Example: `  weft resources http://127.0.0.1:8080/mcp
  weft resources --json -- weft serve --stdio --store memory`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError("unexpected arguments %q; resources takes only the server", rest)
			}
			return withSession(cmd.Context(), e, t, &out, client.Options{}, func(s *client.Session) error {
				ctx := cmd.Context()
				resources, templates := []*mcp.Resource{}, []*mcp.ResourceTemplate{}
				if s.ServerCapabilities().Resources != nil {
					var err error
					if resources, err = collect(s.Resources(ctx), "resources"); err != nil {
						return err
					}
					if templates, err = collect(s.ResourceTemplates(ctx), "resource templates"); err != nil {
						return err
					}
				}
				if !out.human(e) {
					return printJSON(e.stdout, struct {
						Resources         []*mcp.Resource         `json:"resources"`
						ResourceTemplates []*mcp.ResourceTemplate `json:"resourceTemplates"`
					}{resources, templates})
				}
				if len(resources)+len(templates) == 0 {
					fmt.Fprintln(e.stdout, "no resources")
					return nil
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "URI\tNAME\tTYPE\tDESCRIPTION")
				for _, r := range resources {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.URI, r.Name, r.MIMEType, oneLine(r.Description))
				}
				for _, r := range templates {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.URITemplate, r.Name, r.MIMEType, oneLine(r.Description))
				}
				return tw.Flush()
			})
		}),
	}
	out.add(cmd)
	return cmd
}
