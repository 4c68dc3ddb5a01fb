package tasks

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// problemWindow is how long after logging a kind of problem the Runtime
// only counts further ones. A store or bus that goes away under thousands
// of tasks (at shutdown, in an outage) then gives one line, not thousands.
const problemWindow = time.Minute

// problemLog throttles the Runtime's warnings by kind.
type problemLog struct {
	mu     sync.Mutex
	logged map[string]time.Time // when each kind was last logged
	muted  map[string]int       // how many of each kind went unlogged since
}

// problem logs a problem of the kind at level, unless one was logged less than
// problemWindow ago: then it is only counted, and the count goes with the
// next line of the kind.
func (r *Runtime) problem(level slog.Level, kind, msg string, attrs ...slog.Attr) {
	p := &r.problems
	now := time.Now()
	p.mu.Lock()
	if last, ok := p.logged[kind]; ok && now.Sub(last) < problemWindow {
		p.muted[kind]++
		p.mu.Unlock()
		return
	}
	if p.logged == nil {
		p.logged, p.muted = make(map[string]time.Time), make(map[string]int)
	}
	p.logged[kind] = now
	muted := p.muted[kind]
	delete(p.muted, kind)
	p.mu.Unlock()
	if muted > 0 {
		attrs = append(attrs, slog.Int("unlogged_since_last", muted))
	}
	attrs = append(attrs, slog.String("throttle", "more of this kind within "+problemWindow.String()+" are counted, not logged"))
	r.log.LogAttrs(context.Background(), level, msg, attrs...)
}
