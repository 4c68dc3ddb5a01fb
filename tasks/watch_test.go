package tasks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

func TestWatchFromAnotherInstanceSeesEveryChange(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	steps := make(chan string)
	a.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		for msg := range steps {
			x.Progress(msg)
		}
		return tasks.Result{Value: raw(`{"ok":true}`)}, nil
	}, tasks.Policy{})
	task := start(t, a, "alice", "job")

	var seen []string
	for snap, err := range b.Watch(testCtx(t), "alice", task.ID) {
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		seen = append(seen, string(snap.Status)+":"+snap.StatusMessage)
		// Drive the handler one step per snapshot, so no change is coalesced.
		switch len(seen) {
		case 1, 2:
			steps <- []string{"loading", "computing"}[len(seen)-1]
		case 3:
			close(steps)
		}
	}
	want := []string{"working:", "working:loading", "working:computing", "completed:"}
	if len(seen) != len(want) {
		t.Fatalf("watched %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("watched %v, want %v", seen, want)
		}
	}
}

func TestWatchAndWaitEndWhenTheRuntimeCloses(t *testing.T) {
	c := newCluster(t)
	a := c.instance("a")
	release := make(chan struct{})
	returning(a, "job", release, tasks.Result{Value: raw(`{}`)}, nil)
	task := start(t, a, "alice", "job")
	waited := make(chan error, 1)
	go func() {
		_, err := a.Wait(testCtx(t), "alice", task.ID)
		waited <- err
	}()
	waitFor(t, a, "alice", task.ID, "the task to run", func(x tasks.Task) bool { return x.Status == tasks.StatusWorking })
	closed := make(chan error, 1)
	go func() { closed <- a.Close(testCtx(t)) }()
	if err := recv(t, waited, "Wait to end"); !errors.Is(err, tasks.ErrClosed) {
		t.Fatalf("Wait during Close returned %v, want ErrClosed", err)
	}
	close(release)
	if err := recv(t, closed, "Close to return"); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
