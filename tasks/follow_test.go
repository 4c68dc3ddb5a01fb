package tasks_test

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// report is one call of a StartRequest.Follow function.
type report struct {
	task    tasks.Task
	stopped bool
}

// following returns a Follow function and the channel its calls arrive on.
func following() (func(tasks.Task, bool), <-chan report) {
	ch := make(chan report, 16)
	return func(t tasks.Task, stopped bool) { ch <- report{t, stopped} }, ch
}

// startFollowed starts a task of the handler name with a Follow function.
func startFollowed(t *testing.T, rt *tasks.Runtime, name string, follow func(tasks.Task, bool)) tasks.Task {
	t.Helper()
	task, err := rt.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: name, Follow: follow})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return task
}

func TestFollowReportsEachChangeInOrderUntilFinished(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a")
	next := make(chan struct{})
	rt.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		x.Progress("half way")
		<-next
		return tasks.Result{Value: raw(`{"n":1}`)}, nil
	}, tasks.Policy{})
	follow, reports := following()
	startFollowed(t, rt, "job", follow)
	if r := recv(t, reports, "the progress report"); r.stopped || r.task.Status != tasks.StatusWorking || r.task.StatusMessage != "half way" {
		t.Fatalf("first report %+v, want working with the progress message", r)
	}
	close(next)
	if r := recv(t, reports, "the finished state"); r.stopped || r.task.Status != tasks.StatusCompleted || string(r.task.Result) != `{"n":1}` {
		t.Fatalf("second report %+v, want completed with the result", r)
	}
	select {
	case r := <-reports:
		t.Fatalf("a report after the finished state: %+v", r)
	default:
	}
}

func TestFollowReportsACancelFromAnotherInstance(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	started, causes := make(chan *tasks.Exec, 1), make(chan error, 1)
	a.Register("tools/call", "block", blockUntilStopped(started, causes), tasks.Policy{})
	follow, reports := following()
	task := startFollowed(t, a, "block", follow)
	recv(t, started, "the handler to start")
	if _, err := b.Cancel(testCtx(t), "alice", task.ID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	if r := recv(t, reports, "the cancel"); r.stopped || r.task.Status != tasks.StatusCancelled {
		t.Fatalf("report %+v, want cancelled", r)
	}
}

func TestFollowSaysStoppedWhenTheInstanceStopsRunningTheTask(t *testing.T) {
	c := newCluster(t)
	rt, err := tasks.New(c.store, c.bus, c.fastOptions("a")...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	started, causes := make(chan *tasks.Exec, 1), make(chan error, 1)
	rt.Register("tools/call", "block", blockUntilStopped(started, causes), tasks.Policy{})
	follow, reports := following()
	task := startFollowed(t, rt, "block", follow)
	recv(t, started, "the handler to start")
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	rt.Close(ended) // stops the handler at once
	r := recv(t, reports, "the last report")
	if !r.stopped || r.task.ID != task.ID || r.task.Status != tasks.StatusWorking {
		t.Fatalf("report %+v, want stopped with the last state reported (working)", r)
	}
}
