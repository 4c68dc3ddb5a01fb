package server

import (
	"context"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// Both task surfaces carry the poll interval the runtime suggests from how
// the task is going (short when new, growing while nothing changes), and a
// client that ignores it and polls back to back costs the store no read
// while the task is unchanged.
func TestTaskPollIntervalOnBothSurfaces(t *testing.T) {
	for _, sf := range []struct{ name, version, caps, call, field string }{
		{"legacy", mcp.Version20251125, `{}`, `{"name":"hold","arguments":{},"task":{}}`, "pollInterval"},
		{"extension", mcp.Version20260728, extCaps, `{"name":"hold","arguments":{}}`, "pollIntervalMs"},
	} {
		t.Run(sf.name, func(t *testing.T) {
			clock := newFakeClock()
			store := &storetest.CountingStore{Store: tasks.NewMemoryStore()}
			rt := newRuntimeOn(t, store, tasks.NewMemoryBus(), tasks.WithClock(clock),
				tasks.WithPollInterval(time.Second), tasks.WithMinPollInterval(50*time.Millisecond),
				tasks.WithRecordCache(tasks.DefaultRecordCache),
				tasks.WithPollPacing(0)) // the cache alone answers; TestTasksGetIsPaced checks pacing
			g := newGate()
			defer g.release()
			c := open(t, taskServer(t, rt, g, nil), sf.version, sf.caps, nil)
			get := startHeld(t, c, g, sf.call)
			interval := func() string {
				t.Helper()
				return member(t, c.mustCall(mcp.MethodTasksGet, get), sf.field)
			}
			if got := interval(); got != "50" {
				t.Errorf("a new task's %s is %s, want 50 (the minimum)", sf.field, got)
			}
			clock.Advance(time.Second)
			if got := interval(); got != "500" {
				t.Errorf("after 1s without a change, %s is %s, want 500", sf.field, got)
			}
			before := store.Ops()
			for range 100 {
				interval()
			}
			if ops := store.Ops().Sub(before); ops.Total() != 0 {
				t.Errorf("100 back-to-back polls of an unchanged task cost %s, want no store call", ops)
			}
		})
	}
}

// tasks/get, on both surfaces, is paced: a poll that comes right after
// the answer creating the task, or right after another poll, while the
// task is unchanged, is answered when the task changes, not before.
func TestTasksGetIsPaced(t *testing.T) {
	for _, sf := range []struct{ name, version, caps, call string }{
		{"legacy", mcp.Version20251125, `{}`, `{"name":"hold","arguments":{},"task":{}}`},
		{"extension", mcp.Version20260728, extCaps, `{"name":"hold","arguments":{}}`},
	} {
		t.Run(sf.name, func(t *testing.T) {
			rt := newRuntime(t, tasks.WithPollPacing(time.Hour))
			g := newGate()
			defer g.release()
			c := open(t, taskServer(t, rt, g, nil), sf.version, sf.caps, nil)
			get := startHeld(t, c, g, sf.call)
			type answer struct {
				res []byte
				err error
			}
			first := make(chan answer, 1)
			go func() {
				res, err := c.call(mcp.MethodTasksGet, get)
				first <- answer{res, err}
			}()
			// Pacing holds the poll until the task changes, so it cannot
			// come before the release. Unpaced, it comes at once, or, on a
			// machine too slow for that, it says "working" below.
			select {
			case a := <-first:
				t.Fatalf("the poll right after the creation was answered before the task changed: %s %v", a.res, a.err)
			case <-time.After(200 * time.Millisecond):
			}
			g.release()
			a := <-first
			if a.err != nil {
				t.Fatalf("the poll: %v", a.err)
			}
			if got := member(t, a.res, "status"); got != `"completed"` {
				t.Errorf("the poll: status %s, want completed (it waited for the change)", got)
			}
		})
	}
}

// A task's life over the wire, on either surface, costs the store two
// calls with the record cache (the Create and the Update that completes
// it), however often the client polls.
func TestTaskLifeOverTheWireCostsTwoStoreCalls(t *testing.T) {
	store := &storetest.CountingStore{Store: tasks.NewMemoryStore()}
	rt := newRuntimeOn(t, store, tasks.NewMemoryBus(), tasks.WithRecordCache(tasks.DefaultRecordCache))
	s := newTestServer(t, &Options{Tasks: rt})
	AddTool(s, &mcp.Tool{Name: "task_echo"}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) { // the tool taskLife calls
		return echoOut{Echo: in.Text}, nil
	}, optional)
	for _, sf := range []struct{ version, caps string }{{mcp.Version20251125, `{}`}, {mcp.Version20260728, extCaps}} {
		c := open(t, s, sf.version, sf.caps, nil)
		for range 10 {
			before := store.Ops()
			n, err := taskLife(context.Background(), c)
			if err != nil {
				t.Fatalf("%s: a task's life: %v", sf.version, err)
			}
			if ops := store.Ops().Sub(before); ops.Create != 1 || ops.Update != 1 || ops.Total() != 2 {
				t.Fatalf("%s: a task's life of %d requests cost %s, want one create and one update", sf.version, n, ops)
			}
		}
	}
}

// startHeld makes the tools/call call, which starts a task of the hold
// tool on either surface, waits for its handler to start, and returns the
// params of a tasks/get of it.
func startHeld(t *testing.T, c *testClient, g *gate, call string) string {
	t.Helper()
	var created struct {
		TaskID string `json:"taskId"` // the extension's CreateTaskResult
		Task   struct {
			TaskID string `json:"taskId"` // 2025-11-25's
		} `json:"task"`
	}
	decode(t, c.mustCall(mcp.MethodToolsCall, call), &created)
	g.awaitStart(t)
	return `{"taskId":"` + created.TaskID + created.Task.TaskID + `"}`
}
