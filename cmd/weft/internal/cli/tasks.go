package cli

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/cmd/weft/internal/console"
	"github.com/weftmcp/weft/cmd/weft/internal/follow"
	"github.com/weftmcp/weft/mcp"
)

func newTasks(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "List tasks; get, wait for, cancel or watch a task",
		Long: `Work with a task that weft call --task (or any client) started: read its
status, wait for its result, cancel it, or watch it change. A task outlives
the call that started it, and on a server with a durable store (weft serve
keeps tasks in SQLite by default) it outlives the server's restarts too.

` + targetHelp,
		Example: `  weft tasks list http://127.0.0.1:8080/mcp
  weft tasks get http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA
  weft tasks wait http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA
  weft tasks cancel http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA
  weft tasks watch http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError("which? weft tasks list, get, wait, cancel or watch")
		},
	}
	cmd.AddCommand(newTasksList(e), newTasksGet(e), newTasksWait(e), newTasksCancel(e), newTasksWatch(e))
	return cmd
}

// taskSubcommand builds a weft tasks subcommand that takes a task ID.
func taskSubcommand(e *env, use, short, long, example string, out *outputFlags, ans *answerFlags,
	run func(ctx context.Context, t target, s *client.Session, h *client.TaskHandle, a *answerer) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:     use + " [URL] TASK_ID [-- COMMAND [ARGS...]]",
		Short:   short,
		Long:    long + "\n\n" + targetHelp,
		Example: example,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) != 1 {
				return usageError("%s takes one task ID after the server, got %d arguments", use, len(rest))
			}
			a := &answerer{e: e}
			if ans != nil {
				if a, err = ans.answerer(e, out.human(e)); err != nil {
					return err
				}
			}
			return withSession(cmd.Context(), e, t, out, a.options(), func(s *client.Session) error {
				return run(cmd.Context(), t, s, s.Task(rest[0]), a)
			})
		}),
	}
	out.add(cmd)
	if ans != nil {
		ans.add(cmd)
	}
	return cmd
}

func newTasksGet(e *env) *cobra.Command {
	var out outputFlags
	return taskSubcommand(e, "get", "Print a task's status",
		"Print a task's status, status message and times (tasks/get).",
		"  weft tasks get http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA\n  weft tasks get --json LFZZKAIOO26OTNGNN6NEACDFAA -- weft serve --stdio",
		&out, nil, func(ctx context.Context, _ target, _ *client.Session, h *client.TaskHandle, _ *answerer) error {
			st, err := h.Status(ctx)
			if err != nil {
				return protocolError("reading task "+h.ID(), err)
			}
			return printTask(e.stdout, out.human(e), st)
		})
}

func newTasksWait(e *env) *cobra.Command {
	var out outputFlags
	var ans answerFlags
	return taskSubcommand(e, "wait", "Wait for a task to finish and print its result",
		"Wait for a task to finish and print the tool's result, answering the\nquestions it asks meanwhile (on a terminal, or with --answer).",
		"  weft tasks wait http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA\n  weft tasks wait --answer answer=true http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA",
		&out, &ans, func(ctx context.Context, t target, _ *client.Session, h *client.TaskHandle, a *answerer) error {
			return followTask(ctx, e, t, &out, "task "+h.ID(), h, a)
		})
}

func newTasksCancel(e *env) *cobra.Command {
	var out outputFlags
	return taskSubcommand(e, "cancel", "Cancel a task",
		"Cancel a task (tasks/cancel): the server stops its work wherever it runs,\nand the task ends cancelled. Prints the task's state afterwards.",
		"  weft tasks cancel http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA",
		&out, nil, func(ctx context.Context, _ target, _ *client.Session, h *client.TaskHandle, _ *answerer) error {
			if err := h.Cancel(ctx); err != nil {
				return protocolError("cancelling task "+h.ID(), err)
			}
			st, err := h.Status(ctx)
			if err != nil {
				return protocolError("reading task "+h.ID(), err)
			}
			return printTask(e.stdout, out.human(e), st)
		})
}

func newTasksWatch(e *env) *cobra.Command {
	var out outputFlags
	return taskSubcommand(e, "watch", "Follow a task's status until it finishes",
		"Follow a task's status until it finishes, without answering its questions:\na live progress bar and status line on a terminal, otherwise one line of\nJSON per change. Exits 0 when the task completed, 1 when it failed or was\ncancelled (or the tool reported an error).",
		"  weft tasks watch http://127.0.0.1:8080/mcp LFZZKAIOO26OTNGNN6NEACDFAA\n  weft tasks watch --json LFZZKAIOO26OTNGNN6NEACDFAA -- weft serve --stdio",
		&out, nil, func(ctx context.Context, _ target, _ *client.Session, h *client.TaskHandle, _ *answerer) error {
			human := out.human(e)
			var bar *console.Bar
			if human {
				bar = console.NewBar(e.stdout, "task "+h.ID())
			}
			st, err := follow.Watch(ctx, h, func(st *client.TaskState) {
				if human {
					bar.Report(console.Update{Status: string(st.Status), Message: st.StatusMessage})
					return
				}
				b, _ := json.Marshal(viewOf(st)) // a taskView always encodes
				fmt.Fprintf(e.stdout, "%s\n", b)
			})
			if err != nil {
				if human {
					bar.Finish("")
				}
				return protocolError("watching task "+h.ID(), err)
			}
			if human {
				bar.Finish(fmt.Sprintf("task %s: %s %s", st.ID, st.Status, st.StatusMessage))
			}
			return taskEnd(st)
		})
}

// taskEnd fails with ExitToolError unless the finished task completed
// with a result that is not a tool error.
func taskEnd(st *client.TaskState) error {
	if st.Status != mcp.TaskCompleted {
		return toolFailed("task %s ended %s", st.ID, st.Status)
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	if st.Result != nil && json.Unmarshal(st.Result, &res) == nil && res.IsError {
		return toolFailed("task %s completed with a tool error", st.ID)
	}
	return nil
}
