package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/cmd/weft/internal/console"
	"github.com/weftmcp/weft/cmd/weft/internal/follow"
	"github.com/weftmcp/weft/mcp"
)

// callTask calls a tool as a task and, unless detached, follows it to its
// end.
func callTask(ctx context.Context, e *env, t target, s *client.Session, params *mcp.CallToolParams, f *callFlags, a *answerer) error {
	h, err := s.CallToolAsTask(ctx, params)
	if err != nil {
		return protocolError("calling "+params.Name+" as a task", err)
	}
	human := f.out.human(e)
	if h.ID() == "" { // the server answered at once, without a task
		if human {
			fmt.Fprintf(e.stderr, "weft: the server answered %s at once, without a task\n", params.Name)
		}
		res, err := h.Wait(ctx)
		if err != nil {
			return protocolError("calling "+params.Name, err)
		}
		return printToolResult(e, &f.out, params.Name, res)
	}
	if f.detach {
		st, err := h.Status(ctx)
		if err != nil {
			return protocolError("reading task "+h.ID(), err)
		}
		if !s.IsModern() {
			// The server binds an unauthenticated 2025-11-25 task to its session.
			fmt.Fprintf(e.stderr, "weft: note: on a %s session the task belongs to this session; a later weft tasks command cannot see it unless the server authenticates you\n", s.ProtocolVersion())
		} else if human {
			fmt.Fprintf(e.stderr, "weft: follow it with: weft tasks watch %s\n", taskCommand(t, h.ID()))
		}
		return printTask(e.stdout, human, st)
	}
	if human {
		fmt.Fprintf(e.stderr, "weft: task %s started\n", h.ID())
	}
	return followTask(ctx, e, t, &f.out, params.Name, h, a)
}

// followTask waits for the task h, showing its progress on a terminal, and
// prints its result.
func followTask(ctx context.Context, e *env, t target, out *outputFlags, title string, h *client.TaskHandle, a *answerer) error {
	var rep console.Reporter = console.Nop{}
	if out.human(e) {
		bar := console.NewBar(e.stderr, title)
		a.showOver(bar)
		rep = bar
	}
	res, err := follow.Task(ctx, h, rep)
	rep.Finish("")
	var failed *client.TaskFailedError
	switch {
	case err == nil:
		return printToolResult(e, out, title, res)
	case errors.Is(err, client.ErrTaskCancelled):
		printEndedTask(ctx, e, out, h)
		return toolFailed("task %s was cancelled", h.ID())
	case errors.As(err, &failed):
		printEndedTask(ctx, e, out, h)
		return toolFailed("%v", failed)
	case ctx.Err() != nil:
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("stopped waiting; task %s keeps running (weft tasks cancel %s stops it)", h.ID(), taskCommand(t, h.ID()))}
	}
	return protocolError("waiting for task "+h.ID(), err)
}

// printEndedTask prints, for a program, the state of a task that ended
// without a result (cancelled or failed), so the output says how it ended.
func printEndedTask(ctx context.Context, e *env, out *outputFlags, h *client.TaskHandle) {
	if out.human(e) {
		return
	}
	if st, err := h.Status(ctx); err == nil {
		printJSON(e.stdout, viewOf(st))
	}
}

// taskCommand is the arguments of a weft tasks command for task id on t.
func taskCommand(t target, id string) string {
	if t.url != "" {
		return t.url + " " + id
	}
	return id + " -- " + t.String()
}
