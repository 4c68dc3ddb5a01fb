// Package follow follows a task to its end, reporting each change of its
// status on the way: the live view of weft call --task, weft tasks watch
// and weft demo.
package follow

import (
	"context"
	"time"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/cmd/weft/internal/console"
	"github.com/weftmcp/weft/mcp"
)

// Poll interval bounds: the server's suggestion, kept between these so
// the view stays live without flooding the server.
const (
	minPoll     = 100 * time.Millisecond
	defaultPoll = 250 * time.Millisecond
	maxPoll     = time.Second
	lastLook    = 5 * time.Second // bounds the last status read
)

// Task waits for the task h to finish and returns its result, reporting to
// rep every change of its status and status message meanwhile. Waiting
// answers the task's questions with the session's handlers, as
// client.TaskHandle.Wait does. The error is Wait's: a task that failed or
// was cancelled is an error, a tool's own failure is a result.
func Task(ctx context.Context, h *client.TaskHandle, rep console.Reporter) (*mcp.CallToolResult, error) {
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := h.Wait(ctx)
		done <- outcome{res, err}
	}()
	w := watcher{h: h, rep: rep}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case o := <-done:
			// A last look, so the report ends on the final status (even
			// when ctx has ended and the task runs on).
			last, cancel := context.WithTimeout(context.WithoutCancel(ctx), lastLook)
			w.poll(last)
			cancel()
			return o.res, o.err
		case <-timer.C:
			timer.Reset(w.poll(ctx))
		}
	}
}

// Watch calls changed with the task's state at first and at every change
// of its status or status message until it finishes, without waiting for
// (or answering) anything, and returns its final state.
func Watch(ctx context.Context, h *client.TaskHandle, changed func(*client.TaskState)) (*client.TaskState, error) {
	var last *client.TaskState
	for {
		st, err := h.Status(ctx)
		if err != nil {
			return nil, err
		}
		if last == nil || st.Status != last.Status || st.StatusMessage != last.StatusMessage {
			changed(st)
		}
		last = st
		if st.Terminal() {
			return st, nil
		}
		t := time.NewTimer(interval(st))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, context.Cause(ctx)
		case <-t.C:
		}
	}
}

// watcher reports the changes it sees.
type watcher struct {
	h    *client.TaskHandle
	rep  console.Reporter
	last client.TaskState
	seen bool
}

// poll reads the task's state once, reports a change, and returns when to
// read it next. Errors are left to Wait, which reads the same state.
func (w *watcher) poll(ctx context.Context) time.Duration {
	st, err := w.h.Status(ctx)
	if err != nil {
		return defaultPoll
	}
	w.report(st)
	return interval(st)
}

// report passes st on when its status or message changed.
func (w *watcher) report(st *client.TaskState) {
	if w.seen && st.Status == w.last.Status && st.StatusMessage == w.last.StatusMessage {
		return
	}
	w.seen, w.last = true, *st
	w.rep.Report(console.Update{Status: string(st.Status), Message: st.StatusMessage})
}

// interval is how long to wait before the next look at a task in state st.
func interval(st *client.TaskState) time.Duration {
	if st.PollInterval <= 0 {
		return defaultPoll
	}
	return min(max(st.PollInterval, minPoll), maxPoll)
}
