package server

import (
	"context"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/tasks"
)

// A tool task whose instance is lost runs again on another instance from
// the call it recorded: the run that Start began takes the call its
// tools/call decoded, a re-run decodes the recorded one.
func TestToolTaskRunsAgainOnAnotherInstanceFromItsRecordedCall(t *testing.T) {
	store, bus, clock := tasks.NewMemoryStore(), tasks.NewMemoryBus(), newFakeClock()
	fast := []tasks.Option{tasks.WithClock(clock), tasks.WithSweepInterval(5 * time.Millisecond), tasks.WithLogger(quietLogger)}
	rtA, err := tasks.New(store, bus, append(fast, tasks.WithInstanceID("a"))...)
	if err != nil {
		t.Fatalf("tasks.New: %v", err)
	}
	rtB := newRuntimeOn(t, store, bus, append(fast, tasks.WithInstanceID("b"))...)
	rerun := Tasks(TaskConfig{Support: mcp.TaskSupportOptional, Recovery: tasks.Policy{Rerun: true}})
	started := make(chan struct{}, 1)
	sA := New(mcp.Implementation{Name: "a", Version: "1"}, &Options{Tasks: rtA, Logger: quietLogger})
	AddTool(sA, &mcp.Tool{Name: "again"}, func(ctx context.Context, _ *Request, in echoIn) (echoOut, error) {
		started <- struct{}{}
		<-ctx.Done() // until instance a is lost
		return echoOut{}, context.Cause(ctx)
	}, rerun)
	sB := New(mcp.Implementation{Name: "b", Version: "1"}, &Options{Tasks: rtB, Logger: quietLogger})
	AddTool(sB, &mcp.Tool{Name: "again"}, func(_ context.Context, _ *Request, in echoIn) (echoOut, error) {
		return echoOut{Echo: "b:" + in.Text}, nil
	}, rerun)

	a := open(t, sA, mcp.Version20260728, extCaps, nil)
	var created struct {
		TaskID string `json:"taskId"`
	}
	decode(t, a.mustCall(mcp.MethodToolsCall, `{"name":"again","arguments":{"text":"hi"}}`), &created)
	<-started
	lost, cancel := context.WithCancel(context.Background())
	cancel()
	rtA.Close(lost) // stops the run and releases its lease: b's sweep takes the task over

	ctx, stop := context.WithTimeout(context.Background(), waitFor)
	defer stop()
	done, err := rtB.Wait(ctx, "", created.TaskID)
	if err != nil || done.Status != tasks.StatusCompleted {
		t.Fatalf("the task on instance b: %s, %v; want completed by its re-run", done.Status, err)
	}
	b := open(t, sB, mcp.Version20260728, extCaps, nil)
	got := b.mustCall(mcp.MethodTasksGet, `{"taskId":"`+created.TaskID+`"}`)
	if echo := member(t, got, "result", "structuredContent", "echo"); echo != `"b:hi"` {
		t.Errorf("the re-run's result carries echo %s, want \"b:hi\" from the recorded arguments", echo)
	}
}
