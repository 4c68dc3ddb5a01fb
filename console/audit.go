package console

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// AuditEvent is one audit event of a task, as the Runtime logged it
// ("task created", "task cancelled", …).
type AuditEvent struct {
	Time     time.Time         `json:"time"`
	Event    string            `json:"event"`
	Instance string            `json:"instance"`
	Attrs    map[string]string `json:"attrs,omitempty"`
}

// AuditRecorder keeps the recent audit events of tasks for the console to
// show: a slog.Handler to wrap around the handler of the logger given to
// the Runtime (tasks.WithLogger). It passes every record on to the handler
// it wraps, and remembers the Runtime's task events (message "task …" with
// a task_id attribute), at most perTask for each of the last tasks it saw
// events of. Events are those of this instance, kept in memory: a task run
// elsewhere, or before a restart, shows only what this instance logged.
type AuditRecorder struct {
	next  slog.Handler
	attrs []slog.Attr // from WithAttrs, outside any group
	group bool        // WithGroup was called: later attributes are nested
	log   *auditLog
}

// auditLog is the memory an AuditRecorder and its derived handlers share.
type auditLog struct {
	mu      sync.Mutex
	events  map[string][]AuditEvent
	order   []string // task IDs, oldest first, for eviction
	tasks   int
	perTask int
}

// NewAuditRecorder returns a recorder passing records on to next (which may
// be nil, to keep events without logging them) that keeps up to perTask
// events for each of the last tasks tasks (64 and 10,000 when zero).
func NewAuditRecorder(next slog.Handler, tasks, perTask int) *AuditRecorder {
	if tasks <= 0 {
		tasks = 10000
	}
	if perTask <= 0 {
		perTask = 64
	}
	return &AuditRecorder{next: next, log: &auditLog{events: make(map[string][]AuditEvent), tasks: tasks, perTask: perTask}}
}

// Enabled implements slog.Handler: task events are Info, always recorded.
func (a *AuditRecorder) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelInfo || (a.next != nil && a.next.Enabled(ctx, level))
}

// Handle implements slog.Handler.
func (a *AuditRecorder) Handle(ctx context.Context, rec slog.Record) error {
	if event, ok := strings.CutPrefix(rec.Message, "task "); ok && !a.group && rec.Level == slog.LevelInfo {
		e := AuditEvent{Time: rec.Time, Event: event}
		var id string
		take := func(at slog.Attr) bool {
			switch at.Key {
			case "task_id":
				id = at.Value.String()
			case "instance":
				e.Instance = at.Value.String()
			case "event", "principal", "method", "name":
			default:
				if e.Attrs == nil {
					e.Attrs = make(map[string]string)
				}
				e.Attrs[at.Key] = at.Value.String()
			}
			return true
		}
		for _, at := range a.attrs {
			take(at)
		}
		rec.Attrs(take)
		if id != "" {
			a.log.add(id, e)
		}
	}
	if a.next != nil && a.next.Enabled(ctx, rec.Level) {
		return a.next.Handle(ctx, rec)
	}
	return nil
}

// WithAttrs implements slog.Handler.
func (a *AuditRecorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *a
	if !a.group {
		c.attrs = append(append([]slog.Attr(nil), a.attrs...), attrs...)
	}
	if a.next != nil {
		c.next = a.next.WithAttrs(attrs)
	}
	return &c
}

// WithGroup implements slog.Handler.
func (a *AuditRecorder) WithGroup(name string) slog.Handler {
	c := *a
	c.group = c.group || name != ""
	if a.next != nil {
		c.next = a.next.WithGroup(name)
	}
	return &c
}

// Events returns the events recorded for the task, oldest first.
func (a *AuditRecorder) Events(taskID string) []AuditEvent {
	a.log.mu.Lock()
	defer a.log.mu.Unlock()
	return append([]AuditEvent(nil), a.log.events[taskID]...)
}

// add records the event, forgetting the oldest task's when too many tasks
// have events, and a task's oldest event when it has too many.
func (l *auditLog) add(id string, e AuditEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	evs, known := l.events[id]
	if !known {
		if len(l.order) >= l.tasks {
			delete(l.events, l.order[0])
			l.order = l.order[1:]
		}
		l.order = append(l.order, id)
	}
	if len(evs) >= l.perTask {
		evs = evs[1:]
	}
	l.events[id] = append(evs, e)
}
