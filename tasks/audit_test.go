package tasks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// lockedBuffer is a log destination shared by goroutines.
type lockedBuffer struct {
	cond
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.buf.Write(p)
	b.mu.Unlock()
	b.broadcast()
	return n, err
}

// events returns the audit events logged so far, by event name.
func (b *lockedBuffer) events(t *testing.T) map[string][]map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string][]map[string]any{}
	for line := range bytes.Lines(b.buf.Bytes()) {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		if ev, ok := rec["event"].(string); ok {
			out[ev] = append(out[ev], rec)
		}
	}
	return out
}

func TestAuditEventsCarryPrincipalAndTaskID(t *testing.T) {
	c := newCluster(t)
	logs := &lockedBuffer{}
	rt := c.instance("a", tasks.WithLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	rt.Register("tools/call", "ask", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		resp, err := x.Ask(ctx, askConfirm)
		if err != nil {
			return tasks.Result{}, err
		}
		return tasks.Result{Value: resp}, nil
	}, tasks.Policy{})
	rt.Register("tools/call", "fail", func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{}, errors.New("no such file")
	}, tasks.Policy{})
	rt.Register("tools/call", "block", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-ctx.Done()
		return tasks.Result{}, ctx.Err()
	}, tasks.Policy{})

	asked := start(t, rt, "alice", "ask")
	waitFor(t, rt, "alice", asked.ID, "the input request", outstanding(1))
	if err := rt.Answer(testCtx(t), "alice", asked.ID, map[string]json.RawMessage{"input-1": raw(`{"action":"accept"}`)}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	wait(t, rt, "alice", asked.ID)
	failed := start(t, rt, "bob", "fail")
	wait(t, rt, "bob", failed.ID)
	cancelled := start(t, rt, "carol", "block")
	if _, err := rt.Cancel(testCtx(t), "carol", cancelled.ID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	expired, err := rt.Start(testCtx(t), tasks.StartRequest{Principal: "dave", Method: "tools/call", Name: "block", TTL: time.Minute})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c.clock.Advance(2 * time.Minute)

	want := []struct{ event, principal, id string }{
		{"created", "alice", asked.ID},
		{"input requested", "alice", asked.ID},
		{"input answered", "alice", asked.ID},
		{"completed", "alice", asked.ID},
		{"failed", "bob", failed.ID},
		{"cancelled", "carol", cancelled.ID},
		{"expired", "dave", expired.ID},
	}
	// Events are logged right after the store write, so a waiter may see
	// the write a moment before the log line exists.
	logs.wait(t, "an audit event of each kind for its principal and task", func() bool {
		events := logs.events(t)
		for _, w := range want {
			found := false
			for _, rec := range events[w.event] {
				if rec["principal"] == w.principal && rec["task_id"] == w.id && rec["instance"] == "a" &&
					rec["msg"] == "task "+w.event && rec["level"] == "INFO" {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		return true
	})
}
