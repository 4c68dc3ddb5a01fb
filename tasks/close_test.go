package tasks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

func TestCloseWaitsForRunningHandlers(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a")
	release := make(chan struct{})
	closeReturned := make(chan struct{})
	early := make(chan bool, 1)
	rt.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-release
		select {
		case <-closeReturned:
			early <- true
		default:
			early <- false
		}
		return tasks.Result{Value: raw(`{"finished":"during close"}`)}, nil
	}, tasks.Policy{})
	task := start(t, rt, "alice", "job")

	watching := make(chan error, 1)
	go func() {
		for _, err := range rt.Watch(testCtx(t), "alice", task.ID) {
			if err != nil {
				watching <- err
			}
		}
	}()
	closeErr := make(chan error, 1)
	go func() {
		closeErr <- rt.Close(testCtx(t))
		close(closeReturned)
	}()
	// Watch ends with ErrClosed once Close has begun.
	if err := recv(t, watching, "Close to begin"); !errors.Is(err, tasks.ErrClosed) {
		t.Fatalf("Watch during Close ended with %v, want ErrClosed", err)
	}
	if _, err := rt.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job"}); !errors.Is(err, tasks.ErrClosed) {
		t.Fatalf("Start during Close: got %v, want ErrClosed", err)
	}
	close(release)
	if recv(t, early, "the handler to finish") {
		t.Fatalf("Close returned before the running handler finished")
	}
	if err := recv(t, closeErr, "Close to return"); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rec, err := c.store.Get(testCtx(t), task.ID)
	if err != nil || rec.Status != tasks.StatusCompleted {
		t.Fatalf("after Close the task is %v (%v), want its outcome recorded", rec, err)
	}
}
