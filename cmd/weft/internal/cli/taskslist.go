package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

// tasksListNote says which tasks a server lists, for the help and for an
// empty list.
const tasksListNote = `A server lists only the caller's tasks: an authenticated user's, or, on a
server without authorization, those of the session that created them. The
2026-07-28 tasks extension has no tasks/list, so weft tasks list speaks
2025-11-25 unless --protocol says otherwise.`

func newTasksList(e *env) *cobra.Command {
	var out outputFlags
	cmd := &cobra.Command{
		Use:   "list [URL] [-- COMMAND [ARGS...]]",
		Short: "List the tasks the server runs for you",
		Long: "List the tasks the server runs for you (tasks/list, every page), newest\nfirst as the server orders them: ID, status, last update and status message.\n\n" +
			tasksListNote + "\n\n" + targetHelp,
		Example: `  weft tasks list http://127.0.0.1:8080/mcp
  weft tasks list --json http://127.0.0.1:8080/mcp`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 0 {
				return usageError("unexpected arguments %q; tasks list takes only the server", rest)
			}
			if out.protocol == "" {
				out.protocol = mcp.Version20251125
			}
			return withSession(cmd.Context(), e, t, &out, client.Options{}, func(s *client.Session) error {
				tasks, err := collect(s.Tasks(cmd.Context()), "tasks")
				if err != nil {
					return err
				}
				views := make([]taskView, 0, len(tasks))
				for _, st := range tasks {
					views = append(views, viewOf(st))
				}
				if !out.human(e) {
					return printJSON(e.stdout, struct {
						Tasks []taskView `json:"tasks"`
					}{views})
				}
				if len(views) == 0 {
					fmt.Fprintln(e.stdout, "no tasks")
					return nil
				}
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "TASK\tSTATUS\tUPDATED\tMESSAGE")
				for _, v := range views {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.TaskID, v.Status, v.LastUpdatedAt, oneLine(v.StatusMessage))
				}
				return tw.Flush()
			})
		}),
	}
	out.add(cmd)
	return cmd
}
