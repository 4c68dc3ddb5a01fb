package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

func newTools(e *env) *cobra.Command {
	var out outputFlags
	cmd := &cobra.Command{
		Use:   "tools [URL] [TOOL] [-- COMMAND [ARGS...]]",
		Short: "List the tools a server offers, or describe one",
		Long: `List the tools a server offers, with their arguments (required ones marked
*). A 2025-11-25 server also says whether each may run as a task; from
2026-07-28 on the server decides per call. Given a TOOL, describe that one:
its whole description and each argument's type and description.

` + targetHelp,
		Example: `  weft tools http://127.0.0.1:8080/mcp
  weft tools http://127.0.0.1:8080/mcp sleep
  weft tools --json -- weft serve --stdio --store memory
  weft tools -- npx -y @modelcontextprotocol/server-everything`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 1 {
				return usageError("unexpected arguments %q; tools takes the server and at most one tool's name", rest[1:])
			}
			return withSession(cmd.Context(), e, t, &out, client.Options{}, func(s *client.Session) error {
				list, err := collect(s.Tools(cmd.Context()), "tools")
				if err != nil {
					return err
				}
				if len(rest) == 1 {
					return describeTool(e, &out, list, rest[0])
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
					fmt.Fprintln(tw, "TOOL\tARGUMENTS\tTASKS\tDESCRIPTION")
				} else {
					fmt.Fprintln(tw, "TOOL\tARGUMENTS\tDESCRIPTION")
				}
				for _, tool := range list {
					var names []string
					for _, a := range schemaArgs(tool.InputSchema) {
						names = append(names, argName(a.name, a.required))
					}
					args := strings.Join(names, " ")
					if tasks {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", tool.Name, args, tool.TaskSupport(), oneLine(tool.Description))
					} else {
						fmt.Fprintf(tw, "%s\t%s\t%s\n", tool.Name, args, oneLine(tool.Description))
					}
				}
				return tw.Flush()
			})
		}),
	}
	out.add(cmd)
	return cmd
}

// argName is an argument's name as tables show it: required ones marked *.
func argName(name string, required bool) string {
	if required {
		return name + "*"
	}
	return name
}

// describeTool prints the tool called name among list: its JSON, or for a
// person its description and arguments.
func describeTool(e *env, out *outputFlags, list []*mcp.Tool, name string) error {
	i := slices.IndexFunc(list, func(t *mcp.Tool) bool { return t.Name == name })
	if i < 0 {
		return fmt.Errorf("the server has no tool %q; weft tools without a name lists them", name)
	}
	tool := list[i]
	if !out.human(e) {
		return printJSON(e.stdout, tool)
	}
	title := tool.Name
	if tool.Title != "" && tool.Title != tool.Name {
		title += " (" + tool.Title + ")"
	}
	fmt.Fprintln(e.stdout, title)
	if d := strings.TrimSpace(tool.Description); d != "" {
		fmt.Fprintf(e.stdout, "  %s\n", strings.ReplaceAll(d, "\n", "\n  "))
	}
	if tool.Execution != nil {
		fmt.Fprintf(e.stdout, "  runs as a task: %s\n", tool.TaskSupport())
	}
	args := schemaArgs(tool.InputSchema)
	if len(args) == 0 {
		fmt.Fprintln(e.stdout, "\nno arguments")
		return nil
	}
	fmt.Fprintln(e.stdout, "\nArguments (* required):")
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, a := range args {
		typ := a.typ
		if typ == "" {
			typ = "any"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", argName(a.name, a.required), typ, oneLine(a.description))
	}
	return tw.Flush()
}
