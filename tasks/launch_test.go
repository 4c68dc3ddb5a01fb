package tasks_test

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// hiddenStore hides a MemoryStore behind the Store interface alone, so the
// Runtime treats it as a store that waits (a durable one).
type hiddenStore struct{ tasks.Store }

// The first run of a task is offered to StartRequest.Launch on the default
// executor, whatever the store: taken, it runs when, and where, Launch's
// taker runs it, and only then; refused, the executor runs it. With an
// executor of the caller's own it is not offered at all.
func TestStartOffersTheFirstRunToLaunch(t *testing.T) {
	startWith := func(t *testing.T, rt *tasks.Runtime, launch func(func()) bool) tasks.Task {
		t.Helper()
		task, err := rt.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job",
			Params: raw(`{}`), Launch: launch})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		return task
	}
	counting := func(rt *tasks.Runtime) chan struct{} {
		ran := make(chan struct{}, 4)
		rt.Register("tools/call", "job", func(context.Context, *tasks.Exec) (tasks.Result, error) {
			ran <- struct{}{}
			return tasks.Result{Value: raw(`{}`)}, nil
		}, tasks.Policy{})
		return ran
	}

	for _, store := range []struct {
		name  string
		place func(c *cluster) tasks.Store
	}{
		{"taken", func(c *cluster) tasks.Store { return c.store }},
		{"taken, on a store that waits", func(c *cluster) tasks.Store { return hiddenStore{c.store} }},
	} {
		t.Run(store.name, func(t *testing.T) {
			c := newCluster(t)
			rt := c.instanceOn(store.place(c), "a")
			ran := counting(rt)
			var taken func()
			task := startWith(t, rt, func(run func()) bool { taken = run; return true })
			if taken == nil {
				t.Fatal("Launch was not offered the first run")
			}
			taken() // runs the handler here, to the end
			if len(ran) != 1 {
				t.Fatalf("the handler ran %d times once the taken run returned; want once", len(ran))
			}
			if got := wait(t, rt, "alice", task.ID); got.Status != tasks.StatusCompleted {
				t.Fatalf("the task is %s; want completed", got.Status)
			}
			if err := rt.Close(testCtx(t)); err != nil {
				t.Fatal(err)
			}
			if len(ran) != 1 {
				t.Fatalf("the handler ran %d times; want once (the executor ran it too)", len(ran))
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		c := newCluster(t)
		rt := c.instance("a")
		ran := counting(rt)
		task := startWith(t, rt, func(func()) bool { return false })
		awaitRun(t, ran)
		if got := wait(t, rt, "alice", task.ID); got.Status != tasks.StatusCompleted {
			t.Fatalf("the task is %s; want completed", got.Status)
		}
	})
	notOffered := func(t *testing.T, rt *tasks.Runtime) {
		ran := counting(rt)
		task := startWith(t, rt, func(func()) bool { t.Error("Launch was offered the run"); return true })
		awaitRun(t, ran)
		wait(t, rt, "alice", task.ID)
	}
	t.Run("an executor of the caller's", func(t *testing.T) {
		c := newCluster(t)
		notOffered(t, c.instance("a", tasks.WithExecutor(newSerialExecutor(t))))
	})
}

// awaitRun waits for the handler's run to be reported on ran.
func awaitRun(t *testing.T, ran <-chan struct{}) {
	t.Helper()
	select {
	case <-ran:
	case <-testCtx(t).Done():
		t.Fatal("the executor did not run the handler")
	}
}
