package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

func TestCancelStopsTheHandlerOnAnotherInstance(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	started, causes := make(chan *tasks.Exec, 1), make(chan error, 1)
	returned := make(chan struct{})
	a.Register("tools/call", "slow_compute", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		defer close(returned)
		started <- x
		<-ctx.Done()
		causes <- context.Cause(ctx)
		// A late result: it must be discarded.
		return tasks.Result{Value: raw(`{"content":[]}`)}, nil
	}, tasks.Policy{})
	task := start(t, a, "alice", "slow_compute")
	recv(t, started, "the handler to start")

	cancelled, err := b.Cancel(testCtx(t), "alice", task.ID)
	if err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	if cancelled.Status != tasks.StatusCancelled || cancelled.StatusMessage == "" {
		t.Fatalf("Cancel returned %s %q, want cancelled with a message", cancelled.Status, cancelled.StatusMessage)
	}
	if got, _ := a.Get(testCtx(t), "alice", task.ID); got.Status != tasks.StatusCancelled {
		t.Fatalf("right after Cancel returned the task is %s, want cancelled", got.Status)
	}
	if cause := recv(t, causes, "the handler's context to end"); !errors.Is(cause, tasks.ErrCancelled) {
		t.Fatalf("the handler's context ended with %v, want ErrCancelled", cause)
	}
	recv(t, returned, "the handler to return")
	c.instance("c") // another instance's sweeps must not disturb the outcome either
	if got := wait(t, a, "alice", task.ID); got.Status != tasks.StatusCancelled || got.Result != nil {
		t.Fatalf("after the handler's late result the task is %s with %s, want cancelled with no result", got.Status, got.Result)
	}
}

func TestCancelOfAFinishedTaskIsATerminalError(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a")
	returning(rt, "job", nil, tasks.Result{Value: raw(`{}`)}, nil)
	task := start(t, rt, "alice", "job")
	wait(t, rt, "alice", task.ID)
	_, err := rt.Cancel(testCtx(t), "alice", task.ID)
	var term *tasks.TerminalError
	if !errors.As(err, &term) || term.Status != tasks.StatusCompleted || term.TaskID != task.ID || !errors.Is(err, tasks.ErrTerminal) {
		t.Fatalf("Cancel of a completed task: got %v, want a *TerminalError for completed", err)
	}
	if got := wait(t, rt, "alice", task.ID); got.Status != tasks.StatusCompleted {
		t.Fatalf("a refused Cancel changed the task to %s", got.Status)
	}
}

// TestCancelRacingCompletion runs Cancel against a finishing handler many
// times: whichever lands first, Cancel's answer and the final state agree.
func TestCancelRacingCompletion(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	// The current round's gate. A handler of a round whose task was
	// cancelled before it started may read a later round's gate, but its
	// context has ended, so it returns at once.
	var gate atomic.Pointer[chan struct{}]
	a.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		select {
		case <-*gate.Load():
		case <-ctx.Done():
			return tasks.Result{}, ctx.Err()
		}
		return tasks.Result{Value: raw(`{"done":true}`)}, nil
	}, tasks.Policy{})
	cancels, completions := 0, 0
	for range 200 {
		g := make(chan struct{})
		gate.Store(&g)
		task := start(t, a, "alice", "job")
		go close(g)
		_, err := b.Cancel(testCtx(t), "alice", task.ID)
		final := wait(t, a, "alice", task.ID)
		var term *tasks.TerminalError
		switch {
		case err == nil:
			cancels++
			if final.Status != tasks.StatusCancelled || final.Result != nil {
				t.Fatalf("Cancel succeeded but the task ended %s with %s", final.Status, final.Result)
			}
		case errors.As(err, &term) && term.Status == tasks.StatusCompleted:
			completions++
			if final.Status != tasks.StatusCompleted || string(final.Result) != `{"done":true}` {
				t.Fatalf("Cancel lost to completion but the task ended %s with %s", final.Status, final.Result)
			}
		default:
			t.Fatalf("Cancel racing completion: %v", err)
		}
	}
	t.Logf("cancel won %d times, completion %d", cancels, completions)
}

func TestCancelWhileWaitingForInput(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	askErr := make(chan error, 1)
	a.Register("tools/call", "confirm_delete", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		_, err := x.Ask(ctx, askConfirm)
		askErr <- err
		return tasks.Result{}, err
	}, tasks.Policy{})
	task := start(t, a, "alice", "confirm_delete")
	waitFor(t, b, "alice", task.ID, "the input request", outstanding(1))
	if _, err := b.Cancel(testCtx(t), "alice", task.ID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	if err := recv(t, askErr, "Ask to return"); !errors.Is(err, tasks.ErrCancelled) {
		t.Fatalf("Ask of a cancelled task returned %v, want ErrCancelled", err)
	}
	final := wait(t, b, "alice", task.ID)
	if final.Status != tasks.StatusCancelled || len(final.InputRequests) != 0 {
		t.Fatalf("the task ended %s with input requests %v, want cancelled with none", final.Status, final.InputRequests)
	}
	if err := b.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{"input-1": raw(`{"action":"accept"}`)}); err != nil {
		t.Fatalf("an answer arriving after the cancel: got %v, want it ignored", err)
	}
}

func TestWaitCalledBeforeTheTaskFinishes(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	release := make(chan struct{})
	returning(a, "job", release, tasks.Result{Value: raw(`{"n":1}`)}, nil)
	task := start(t, a, "alice", "job")
	waited := make(chan tasks.Task, 1)
	go func() {
		got, err := b.Wait(testCtx(t), "alice", task.ID)
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
		waited <- got
	}()
	// Wait is parked: the task cannot finish before the release.
	waitFor(t, b, "alice", task.ID, "the task to be working", func(x tasks.Task) bool { return x.Status == tasks.StatusWorking })
	close(release)
	if got := recv(t, waited, "Wait to return"); got.Status != tasks.StatusCompleted || string(got.Result) != `{"n":1}` {
		t.Fatalf("Wait returned %s with %s, want completed with the result", got.Status, got.Result)
	}
}

func TestWaitEndsWithTheCallersContext(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a")
	release := make(chan struct{})
	defer close(release)
	returning(rt, "job", release, tasks.Result{Value: raw(`{}`)}, nil)
	task := start(t, rt, "alice", "job")
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("client went away")
	cancel(stop)
	if _, err := rt.Wait(ctx, "alice", task.ID); !errors.Is(err, stop) {
		t.Fatalf("Wait with an ended context returned %v, want its cause", err)
	}
}
