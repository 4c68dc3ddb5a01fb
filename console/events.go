package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// keepAliveEvery is how often an idle event stream gets a comment, so that
// proxies and the browser keep it open.
const keepAliveEvery = 15 * time.Second

// totalsEvery is how often at most the console counts the tasks while
// they change (see totalsCost for the other bound).
const totalsEvery = time.Second

// maxCoalesced bounds the distinct tasks an event stream reads in one
// round after draining what the feed has queued.
const maxCoalesced = 256

// serveEvents answers GET api/events with a Server-Sent Events stream that
// lasts until the page goes away (or its token lapses): a "task" event
// with the task's row whenever a task changes on any instance, "gone" when
// it was deleted, "totals" with new totals at most every totalsEvery while
// tasks change, and "resync" when signals were lost and the page should
// read everything again.
func (c *Console) serveEvents(w http.ResponseWriter, r *http.Request, a access) {
	ctx := r.Context()
	if !a.expires.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, a.expires)
		defer cancel()
	}
	sub, err := c.feed.SubscribeAll(ctx)
	if err != nil {
		c.storeProblem(w, "following the tasks", err)
		return
	}
	defer sub.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	out := &eventWriter{w: w, rc: http.NewResponseController(w)}
	out.send("hello", map[string]string{"instance": c.rt.InstanceID()})

	keepAlive := time.NewTicker(keepAliveEvery)
	defer keepAlive.Stop()
	totalsTimer := time.NewTimer(totalsEvery)
	totalsTimer.Stop() // armed by the first change
	defer totalsTimer.Stop()
	totalsArmed := false
	var lastChange time.Time // when the stream last relayed a change
	for out.err == nil {
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				out.send("expired", map[string]string{"error": "the access token has expired: sign in again"})
			}
			return
		case <-keepAlive.C:
			out.comment("keep-alive")
		case <-totalsTimer.C:
			totalsArmed = false
			t, at, next, err := c.totals(ctx)
			if err != nil {
				c.log.Warn("console: counting tasks for an event stream", slog.Any("error", err))
				break
			}
			out.send("totals", t)
			if at.Before(lastChange) { // a shared count from before the last change: count again when allowed
				totalsTimer.Reset(next.Sub(c.now()))
				totalsArmed = true
			}
		case sig, ok := <-sub.Signals():
			if !ok {
				return
			}
			c.relay(ctx, out, sig, sub)
			lastChange = c.now()
			if !totalsArmed {
				totalsTimer.Reset(totalsEvery)
				totalsArmed = true
			}
		}
	}
}

// relay sends the changes the signal and those queued behind it announce:
// each task once, however many signals it had.
func (c *Console) relay(ctx context.Context, out *eventWriter, first tasks.Signal, sub tasks.Subscription) {
	ids := []string{}
	seen := make(map[string]bool)
	resync := false
	note := func(s tasks.Signal) {
		switch {
		case s == tasks.Resync || s.TaskID == "":
			resync = true
		case !seen[s.TaskID]:
			seen[s.TaskID] = true
			ids = append(ids, s.TaskID)
		}
	}
	note(first)
drain:
	for len(ids) < maxCoalesced {
		select {
		case s, ok := <-sub.Signals():
			if !ok {
				break drain
			}
			note(s)
		default:
			break drain
		}
	}
	if resync {
		out.send("resync", struct{}{})
		return
	}
	for _, id := range ids {
		rec, err := c.store.Get(ctx, id)
		switch {
		case errors.Is(err, tasks.ErrNotFound):
			out.send("gone", map[string]string{"id": id})
		case err != nil:
			if ctx.Err() == nil {
				c.log.Warn("console: reading a changed task", slog.String("task_id", id), slog.Any("error", err))
				out.send("resync", struct{}{})
			}
			return
		default:
			out.send("task", rowOf(rec))
		}
	}
}

// eventWriter writes Server-Sent Events, flushing each; err is the first
// write error, after which it writes nothing.
type eventWriter struct {
	w   io.Writer
	rc  *http.ResponseController
	err error
}

// send writes one event whose data is v as JSON (one line: encoding/json
// escapes newlines in strings, and <, > and & too).
func (e *eventWriter) send(event string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		e.err = err
		return
	}
	e.write(fmt.Sprintf("event: %s\ndata: %s\n\n", event, data))
}

// comment writes a comment line, which keeps the stream alive.
func (e *eventWriter) comment(text string) { e.write(": " + text + "\n\n") }

func (e *eventWriter) write(s string) {
	if e.err != nil {
		return
	}
	if _, e.err = io.WriteString(e.w, s); e.err == nil {
		e.err = e.rc.Flush()
	}
}
