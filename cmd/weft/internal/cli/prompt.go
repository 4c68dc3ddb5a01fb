package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

func newPrompt(e *env) *cobra.Command {
	var out outputFlags
	var ans answerFlags
	cmd := &cobra.Command{
		Use:   "prompt [URL] NAME [KEY=VALUE...] [-- COMMAND [ARGS...]]",
		Short: "Get a prompt, filled in with arguments",
		Long:  "Get a prompt from the server, filled in with KEY=VALUE arguments, and print its messages.\n\n" + targetHelp,
		Example: `  weft prompt http://127.0.0.1:8080/mcp greet name=Ada
  weft prompt --json greet name=Ada -- weft serve --stdio --store memory`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return usageError("which prompt? Give its name after the server (weft prompts lists them)")
			}
			arguments, err := stringArguments(rest[1:])
			if err != nil {
				return err
			}
			a, err := ans.answerer(e, out.human(e))
			if err != nil {
				return err
			}
			return withSession(cmd.Context(), e, t, &out, a.options(), func(s *client.Session) error {
				res, err := s.GetPrompt(cmd.Context(), &mcp.GetPromptParams{Name: rest[0], Arguments: arguments})
				if err != nil {
					return protocolError("getting prompt "+rest[0], err)
				}
				if !out.human(e) {
					return printJSON(e.stdout, res)
				}
				if res.Description != "" {
					fmt.Fprintf(e.stdout, "# %s\n", res.Description)
				}
				for _, m := range res.Messages {
					ensureNewline(e.stdout, fmt.Sprintf("%s: %s", m.Role, contentText(mcp.Contents{m.Content})))
				}
				return nil
			})
		}),
	}
	out.add(cmd)
	ans.add(cmd)
	return cmd
}
