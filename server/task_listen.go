package server

import (
	"context"
	"slices"
	"sync"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// A modern subscriptions/listen whose filter names taskIds (the tasks
// extension) gets notifications/tasks for each of them: the full detailed
// task, as tasks/get would show it but without resultType, once when the
// stream opens and again on every change until the task finishes. Only the
// IDs of tasks the requesting principal may see are accepted and listed in
// the acknowledgement; the others are left out exactly as unknown IDs are,
// so a listen cannot probe for someone else's tasks. Progress and log
// messages of tasks never travel on listen streams.

// acceptTaskIDs returns, once each and in order, the IDs of the tasks the
// principal may see.
func (s *Server) acceptTaskIDs(ctx context.Context, principal string, ids []string) []string {
	var ok []string
	for _, id := range ids {
		if id == "" || slices.Contains(ok, id) {
			continue
		}
		if _, err := s.tasks.rt.Get(ctx, principal, id); err == nil {
			ok = append(ok, id)
		}
	}
	return ok
}

// taskFeed holds, for one receiver (a listen stream, a legacy session's
// status notifications), the latest state of each task that changed since
// the receiver last sent, in the order they changed.
type taskFeed struct {
	mu     sync.Mutex
	order  []string
	latest map[string]tasks.Task
	wake   chan struct{} // holds a token while something is pending
}

func newTaskFeed() *taskFeed {
	return &taskFeed{latest: make(map[string]tasks.Task), wake: make(chan struct{}, 1)}
}

// post records a task's new state, replacing one not yet sent.
func (f *taskFeed) post(t tasks.Task) {
	f.mu.Lock()
	if _, pending := f.latest[t.ID]; !pending {
		f.order = append(f.order, t.ID)
	}
	f.latest[t.ID] = t
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// take returns the pending states and empties the feed.
func (f *taskFeed) take() []tasks.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.order) == 0 {
		return nil
	}
	out := make([]tasks.Task, 0, len(f.order))
	for _, id := range f.order {
		out = append(out, f.latest[id])
	}
	f.order = f.order[:0]
	clear(f.latest)
	return out
}

// watchTasks posts every change of the tasks to the feed until they finish
// or ctx ends; the returned function waits for the watchers to stop.
func (s *Server) watchTasks(ctx context.Context, principal string, ids []string, feed *taskFeed) (wait func()) {
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t, err := range s.tasks.rt.Watch(ctx, principal, id) {
				if err != nil {
					return
				}
				feed.post(t)
			}
		}()
	}
	return wg.Wait
}

// taskNotification builds the notifications/tasks message for a task on a
// listen stream whose notifications carry meta.
func taskNotification(t tasks.Task, meta mcp.Meta) (*jsonrpc.Request, error) {
	d, err := detailedTask(t)
	if err != nil {
		return nil, err
	}
	return notification(mcp.NotificationTasks, &mcp.ExtTaskStatusNotificationParams{
		NotificationParams: mcp.NotificationParams{Meta: meta}, DetailedTask: d})
}
