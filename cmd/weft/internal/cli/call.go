package cli

import (
	"context"
	stdjson "encoding/json"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/cmd/weft/internal/console"
	"github.com/weftmcp/weft/mcp"
)

// callFlags are the flags of weft call.
type callFlags struct {
	out    outputFlags
	ans    answerFlags
	task   bool
	detach bool
}

func newCall(e *env) *cobra.Command {
	var f callFlags
	cmd := &cobra.Command{
		Use:   "call [URL] TOOL [KEY=VALUE...] [--task [--detach]] [--json] [-- COMMAND [ARGS...]]",
		Short: "Call a tool, optionally as a task",
		Long: `Call a tool with KEY=VALUE arguments, typed by the tool's input schema: for
a string argument VALUE is sent as it is (text=3 sends "3"), for a number,
integer or boolean it is read as one (seconds=3, ok=true), for an object or
array it is JSON (tags='["a","b"]'). An argument the schema does not type is
sent as JSON when it is valid JSON, else as a string. KEY:=JSON sends the
JSON as it stands (text:=null, n:='"3"').

With --task the call runs as a task: durable on servers that keep tasks, and
pollable and cancellable with weft tasks. On a terminal a live progress bar
and status line follow it, and questions from the server are asked there;
otherwise only the result is printed, as JSON. --detach prints the task as
soon as it is created and leaves it running.

` + targetHelp,
		Example: `  weft call http://127.0.0.1:8080/mcp echo text=hello
  weft call http://127.0.0.1:8080/mcp echo text=3
  weft call http://127.0.0.1:8080/mcp sleep seconds=10 --task
  weft call http://127.0.0.1:8080/mcp sleep seconds=600 --task --detach
  weft call http://127.0.0.1:8080/mcp confirm question="Deploy?" --answer answer=true
  weft call --json echo text=hi -- weft serve --stdio --store memory`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) == 0 {
				return usageError("which tool? Give its name after the server (weft tools lists them)")
			}
			if _, err := parseArguments(rest[1:]); err != nil {
				return err
			}
			if f.detach && !f.task {
				return usageError("--detach needs --task: only a task keeps running without the client")
			}
			a, err := f.ans.answerer(e, f.out.human(e))
			if err != nil {
				return err
			}
			return withSession(cmd.Context(), e, t, &f.out, a.options(), func(s *client.Session) error {
				arguments, err := toolArguments(rest[1:], inputSchema(cmd.Context(), s, rest[0], len(rest) > 1))
				if err != nil {
					return err
				}
				params := &mcp.CallToolParams{Name: rest[0], Arguments: arguments}
				if f.task {
					return callTask(cmd.Context(), e, t, s, params, &f, a)
				}
				return callPlain(cmd.Context(), e, s, params, &f.out, a)
			})
		}),
	}
	f.out.add(cmd)
	f.ans.add(cmd)
	cmd.Flags().BoolVar(&f.task, "task", false, "run the call as a task")
	cmd.Flags().BoolVar(&f.detach, "detach", false, "with --task, print the task once created and leave it running")
	return cmd
}

// inputSchema is the input schema of the tool called name, when there are
// arguments to type with it (need) and the server lists the tool; else nil.
func inputSchema(ctx context.Context, s *client.Session, name string, need bool) stdjson.RawMessage {
	if !need {
		return nil
	}
	for tool, err := range s.Tools(ctx) {
		if err != nil {
			return nil
		}
		if tool.Name == name {
			return tool.InputSchema
		}
	}
	return nil
}

// callPlain calls a tool and waits for its result, showing its progress
// notifications on a terminal.
func callPlain(ctx context.Context, e *env, s *client.Session, params *mcp.CallToolParams, out *outputFlags, a *answerer) error {
	var opts []client.CallOption
	var rep console.Reporter
	if out.human(e) {
		bar := console.NewBar(e.stderr, params.Name)
		a.showOver(bar)
		rep = bar
		opts = append(opts, client.WithProgress(func(p *mcp.ProgressNotificationParams) {
			bar.Report(console.Update{Progress: p.Progress, Total: p.Total, Message: p.Message})
		}))
	}
	res, err := s.CallTool(ctx, params, opts...)
	if rep != nil {
		rep.Finish("")
	}
	if err != nil {
		return protocolError("calling "+params.Name, err)
	}
	return printToolResult(e, out, params.Name, res)
}

// printToolResult prints a tool's result and fails with ExitToolError when
// the tool reported an error.
func printToolResult(e *env, out *outputFlags, name string, res *mcp.CallToolResult) error {
	if !out.human(e) {
		if err := printJSON(e.stdout, res); err != nil {
			return err
		}
	} else if len(res.Content) > 0 {
		ensureNewline(e.stdout, contentText(res.Content))
	} else if res.StructuredContent != nil {
		ensureNewline(e.stdout, string(res.StructuredContent))
	}
	if res.IsError {
		return toolFailed("tool %s reported an error", name)
	}
	return nil
}
