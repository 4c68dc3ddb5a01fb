package cli

import (
	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

func newRead(e *env) *cobra.Command {
	var out outputFlags
	var ans answerFlags
	cmd := &cobra.Command{
		Use:   "read [URL] RESOURCE_URI [-- COMMAND [ARGS...]]",
		Short: "Read a resource",
		Long:  "Read a resource and print its contents.\n\n" + targetHelp,
		Example: `  weft read http://127.0.0.1:8080/mcp weft://example/readme
  weft read --json weft://example/readme -- weft serve --stdio --store memory`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) != 1 {
				return usageError("read takes one resource URI after the server, got %d arguments", len(rest))
			}
			a, err := ans.answerer(e, out.human(e))
			if err != nil {
				return err
			}
			return withSession(cmd.Context(), e, t, &out, a.options(), func(s *client.Session) error {
				res, err := s.ReadResource(cmd.Context(), &mcp.ReadResourceParams{URI: rest[0]})
				if err != nil {
					return protocolError("reading "+rest[0], err)
				}
				if !out.human(e) {
					return printJSON(e.stdout, res)
				}
				for _, c := range res.Contents {
					ensureNewline(e.stdout, resourceContentsText(c))
				}
				return nil
			})
		}),
	}
	out.add(cmd)
	ans.add(cmd)
	return cmd
}
