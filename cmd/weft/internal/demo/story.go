package demo

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/cmd/weft/internal/console"
	"github.com/weftmcp/weft/cmd/weft/internal/follow"
	"github.com/weftmcp/weft/mcp"
)

// story is the client's side of the demo, and what happened, for the
// summary.
type story struct {
	scr     *screen
	s       *client.Session
	results []outcome
}

// outcome is one line of the summary.
type outcome struct {
	what, how string
}

// cancelFallback is how long the cancelled task may run before it is
// cancelled when it reports no progress to wait for.
const cancelFallback = 3 * time.Second

func (st *story) record(what, format string, args ...any) {
	st.results = append(st.results, outcome{what, fmt.Sprintf(format, args...)})
}

// listTools lists the server's tools.
func (st *story) listTools(ctx context.Context) error {
	st.scr.step("Listed the server's tools")
	var rows [][]string
	for tool, err := range st.s.Tools(ctx) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		row := []string{tool.Name, tool.Description}
		if tool.Execution != nil { // 2025-11-25 lists task support; later the server decides per call
			row = append(row, "task: "+string(tool.TaskSupport()))
		}
		rows = append(rows, row)
	}
	st.scr.table(rows)
	st.record("tools listed", "%d", len(rows))
	return nil
}

// slowTask runs sleep as a task and follows its progress to the end.
func (st *story) slowTask(ctx context.Context) error {
	st.scr.step("Ran sleep seconds=3 as a task, following its status")
	started := time.Now()
	res, id, err := st.runTask(ctx, "sleep", `{"seconds":3}`, nil)
	if err != nil {
		return err
	}
	st.scr.line("result: %s", text(res))
	st.record("task completed", "sleep seconds=3 (%s) in %s", id, time.Since(started).Round(100*time.Millisecond))
	return nil
}

// askingTask runs confirm as a task: it asks the user a question, which
// the demo answers.
func (st *story) askingTask(ctx context.Context) error {
	st.scr.step("Ran confirm as a task: it asks the user a question through the client")
	res, id, err := st.runTask(ctx, "confirm", `{"question":"Ship the release?"}`, nil)
	if err != nil {
		return err
	}
	st.scr.line("result: %s", text(res))
	st.record("task completed", "confirm (%s), after answering its question", id)
	return nil
}

// cancelledTask starts a long sleep as a task and cancels it once it
// reports progress (or, if it reports none, after cancelFallback).
func (st *story) cancelledTask(ctx context.Context) error {
	st.scr.step("Ran sleep seconds=60 as a task, then cancelled it")
	var start, progress sync.Once
	progressed := make(chan struct{})
	_, id, err := st.runTask(ctx, "sleep", `{"seconds":60}`, func(h *client.TaskHandle, u console.Update) {
		if u.Message != "" {
			progress.Do(func() { close(progressed) })
		}
		start.Do(func() {
			go func() {
				select {
				case <-progressed:
				case <-time.After(cancelFallback):
				}
				st.scr.aside("cancelling task %s", h.ID())
				if err := h.Cancel(ctx); err != nil {
					st.scr.aside("cancelling failed: %v", err)
				}
			}()
		})
	})
	if !errors.Is(err, client.ErrTaskCancelled) {
		return fmt.Errorf("the task to cancel did not end cancelled: %v", err)
	}
	st.scr.line("the task is cancelled, and the server stopped its tool")
	st.record("task cancelled", "sleep seconds=60 (%s)", id)
	return nil
}

// failingTool calls fail, whose error is a result the model can read.
func (st *story) failingTool(ctx context.Context) error {
	st.scr.step(`Called fail message="disk full": a tool that reports an error`)
	res, err := st.s.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: stdjson.RawMessage(`{"message":"disk full"}`)})
	if err != nil {
		return fmt.Errorf("calling fail: %w", err)
	}
	if !res.IsError {
		return fmt.Errorf("fail did not report an error: %s", text(res))
	}
	st.scr.line("tool error (isError: true): %s", text(res))
	st.record("tool error", "fail: %s", text(res))
	return nil
}

// summary ends the story.
func (st *story) summary(took time.Duration) {
	fmt.Fprintln(st.scr.w, "\nSummary")
	rows := make([][]string, len(st.results))
	for i, r := range st.results {
		rows[i] = []string{r.what, r.how}
	}
	st.scr.table(rows)
	st.scr.line("all on 127.0.0.1 in %s; the server now stops and its temporary store is removed", took.Round(100*time.Millisecond))
}

// text is a tool result's text content.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// runTask calls a tool as a task and follows it to its end. on, if not
// nil, sees every update with the task's handle.
func (st *story) runTask(ctx context.Context, tool, args string, on func(*client.TaskHandle, console.Update)) (*mcp.CallToolResult, string, error) {
	h, err := st.s.CallToolAsTask(ctx, &mcp.CallToolParams{Name: tool, Arguments: stdjson.RawMessage(args)})
	if err != nil {
		return nil, "", fmt.Errorf("calling %s as a task: %w", tool, err)
	}
	st.scr.line("task %s created", h.ID())
	rep := st.scr.reporter(tool)
	if on != nil {
		rep = hooked{rep, func(u console.Update) { on(h, u) }}
	}
	res, err := follow.Task(ctx, h, rep)
	rep.Finish("")
	return res, h.ID(), err
}

// hooked is a Reporter that also passes every update to on.
type hooked struct {
	console.Reporter
	on func(console.Update)
}

func (r hooked) Report(u console.Update) {
	r.Reporter.Report(u)
	r.on(u)
}
