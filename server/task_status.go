package server

import (
	"context"
	stdjson "encoding/json"
	"sync"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// taskStatusOut sends a legacy session notifications/tasks/status for the
// tasks it created, as the task runtime reports their changes on this
// instance (tasks.StartRequest.Follow). It holds no goroutine per task: one
// sender runs while notifications come, and lingers a while after the last
// so that the next task's does not start a goroutine and grow its stack
// again. A goroutine per task watching it to completion was 14% of the CPU
// of a stdio task life at 32 in flight (bench/RESULTS.md). A task's last
// notification, when nothing is waiting to be sent, is written by the
// goroutine that reports it, mostly the one that ran the task (see post).
type taskStatusOut struct {
	ss   *Session
	feed *taskFeed

	mu      sync.Mutex
	shown   map[string]tasks.Task // the last state posted, per unfinished task
	sending bool                  // the sender runs
}

// taskStatusSize is room for the params of most notifications/tasks/status
// (a task with no status message takes about 180 bytes).
const taskStatusSize = 256

// statusSenderLinger is how long the sender waits for another notification
// before it ends.
const statusSenderLinger = time.Second

// taskStatusFollower returns the Follow function of a task the legacy
// session creates: each change of status or status message is sent to the
// session; should this instance stop running the task before it finishes,
// a watcher takes over.
func (s *Server) taskStatusFollower(ss *Session, principal string) func(tasks.Task, bool) {
	if ss == nil {
		return nil
	}
	ss.mu.Lock()
	u := ss.useLocked()
	if u.taskOut == nil {
		u.taskOut = &taskStatusOut{ss: ss, feed: newTaskFeed(), shown: make(map[string]tasks.Task)}
	}
	out := u.taskOut
	ss.mu.Unlock()
	return func(t tasks.Task, stopped bool) {
		if stopped {
			out.forget(t.ID)
			s.watchTaskStatus(ss, principal, t)
			return
		}
		out.post(t)
	}
}

// post queues a notification of the task's state unless its status and
// status message are those last posted (a new task's: working, no message).
func (o *taskStatusOut) post(t tasks.Task) {
	o.mu.Lock()
	last, ok := o.shown[t.ID]
	if !ok {
		last = tasks.Task{Status: tasks.StatusWorking}
	}
	if t.Status == last.Status && t.StatusMessage == last.StatusMessage {
		o.mu.Unlock()
		return
	}
	if t.Terminal() {
		delete(o.shown, t.ID)
		if !o.sending {
			// Nothing of any task waits to be sent, so this overtakes
			// nothing: written here, on the goroutine that recorded the
			// outcome as a rule (which writes the task's progress
			// notifications too), it spares waking the sender: a
			// quarter of a quick legacy task's life over stdio at 32
			// in flight (docs/decisions.md, "Task life cost").
			o.mu.Unlock()
			o.ss.sendLastTaskStatus(o.ss.lifetime(), t)
			return
		}
	} else {
		o.shown[t.ID] = t
	}
	o.mu.Unlock()
	o.feed.post(t)
	o.mu.Lock()
	start := !o.sending
	o.sending = true
	o.mu.Unlock()
	if start {
		go o.send()
	}
}

// forget drops what was posted of a task no longer reported here.
func (o *taskStatusOut) forget(id string) {
	o.mu.Lock()
	delete(o.shown, id)
	o.mu.Unlock()
}

// send sends the pending notifications until none has come for
// statusSenderLinger, or the session has ended.
func (o *taskStatusOut) send() {
	ctx := o.ss.lifetime()
	linger := time.NewTimer(statusSenderLinger)
	defer linger.Stop()
	for {
		for _, t := range o.feed.take() {
			o.ss.sendTaskStatus(ctx, t)
		}
		linger.Reset(statusSenderLinger)
		select {
		case <-o.feed.wake:
			continue
		case <-ctx.Done():
		case <-linger.C:
		}
		o.mu.Lock()
		select {
		case <-o.feed.wake: // posted meanwhile: it is this sender's
			o.mu.Unlock()
			continue
		default:
		}
		o.sending = false
		o.mu.Unlock()
		return
	}
}

// sendTaskStatus sends notifications/tasks/status with the full task,
// without related-task _meta, which the spec says it should not carry.
func (ss *Session) sendTaskStatus(ctx context.Context, t tasks.Task) {
	ss.writeTaskStatus(ctx, t, false)
}

// soonWriter is a stream that can hold a message back for a moment, to go
// with the next message it writes (transport.StdioStream.WriteSoon).
type soonWriter interface {
	WriteSoon(ctx context.Context, msg jsonrpc.Message) error
}

// sendLastTaskStatus is sendTaskStatus for a task's last notification,
// which the session's stream may hold back to write with the next message
// (soonWriter): the client's next request is as a rule about the task, and
// its answer then carries the notification in the same write. Over stdio
// that spares one write system call of a legacy task's life's four:
// process CPU a life 4% less at 1 in flight and 6% at 32, client and
// server together (BenchmarkTaskLifeCost, stdio, legacy, three
// interleaved pairs).
func (ss *Session) sendLastTaskStatus(ctx context.Context, t tasks.Task) {
	ss.writeTaskStatus(ctx, t, true)
}

// writeTaskStatus sends the notification, held back by the stream if soon
// is set and the stream can hold it.
func (ss *Session) writeTaskStatus(ctx context.Context, t tasks.Task, soon bool) {
	params, err := appendLegacyTask(make([]byte, 0, taskStatusSize), t)
	if err == nil {
		if w, ok := ss.stream.(soonWriter); ok && soon {
			err = w.WriteSoon(ctx, &jsonrpc.Request{Method: mcp.NotificationTasksStatus, Params: params})
		} else {
			err = ss.conn.Notify(ctx, mcp.NotificationTasksStatus, stdjson.RawMessage(params))
		}
	}
	if err != nil && ctx.Err() == nil {
		ss.srv.logger.Debug("server: could not send notifications/tasks/status", "session", ss.id, "task", t.ID, "error", err)
	}
}
