package tasks_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// changeObserver is a TaskObserver that records every TaskChange.
type changeObserver struct {
	tasks.NopObserver
	cond
	mu          sync.Mutex
	changes     []tasks.TaskChange
	transitions int // TaskTransition calls, which a TaskObserver must not get
}

func (o *changeObserver) TaskChanged(c tasks.TaskChange) {
	o.mu.Lock()
	o.changes = append(o.changes, c)
	o.mu.Unlock()
	o.broadcast()
}

func (o *changeObserver) TaskTransition(from, to tasks.Status) {
	o.mu.Lock()
	o.transitions++
	o.mu.Unlock()
}

func TestTaskObserverLearnsWhichTaskChangedAndWhen(t *testing.T) {
	c := newCluster(t)
	obs := &changeObserver{}
	rt := c.instance("a", tasks.WithObserver(obs))
	rt.Register("tools/call", "ask", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		resp, err := x.Ask(ctx, askConfirm)
		if err != nil {
			return tasks.Result{}, err
		}
		return tasks.Result{Value: resp, IsError: true}, nil
	}, tasks.Policy{})
	task := start(t, rt, "alice", "ask")
	waitFor(t, rt, "alice", task.ID, "the input request", outstanding(1))
	c.clock.Advance(7 * time.Second) // the wait in input_required
	if err := rt.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{"input-1": raw(`{"action":"accept"}`)}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	wait(t, rt, "alice", task.ID)
	obs.wait(t, "the completion's change", func() bool {
		obs.mu.Lock()
		defer obs.mu.Unlock()
		return len(obs.changes) >= 4
	})

	obs.mu.Lock()
	defer obs.mu.Unlock()
	// The order of the calls is not the order of the writes: the answer's
	// change and the completion of the run it wakes are reported from two
	// goroutines (see TaskObserver). Each change is looked up by what it is.
	want := [][2]tasks.Status{{"", tasks.StatusWorking}, {tasks.StatusWorking, tasks.StatusInputRequired},
		{tasks.StatusInputRequired, tasks.StatusWorking}, {tasks.StatusWorking, tasks.StatusCompleted}}
	if len(obs.changes) != len(want) {
		t.Fatalf("changes %+v, want %v", obs.changes, want)
	}
	got := make(map[[2]tasks.Status]tasks.TaskChange)
	for i, ch := range obs.changes {
		if ch.ID != task.ID || ch.Method != "tools/call" || ch.Name != "ask" {
			t.Errorf("change %d = %+v, want one of task %s (tools/call ask)", i, ch, task.ID)
		}
		if !ch.CreatedAt.Equal(obs.changes[0].CreatedAt) {
			t.Errorf("change %d has CreatedAt %v, want the task's %v", i, ch.CreatedAt, obs.changes[0].CreatedAt)
		}
		got[[2]tasks.Status{ch.From, ch.To}] = ch
	}
	for _, w := range want {
		if _, ok := got[w]; !ok {
			t.Errorf("no change %s → %s among %+v", w[0], w[1], obs.changes)
		}
	}
	if obs.changes[0].From != "" {
		t.Errorf("the first change is %s → %s, want the creation: nothing else can be written before it", obs.changes[0].From, obs.changes[0].To)
	}
	into, out := got[want[1]], got[want[2]]
	if waited := out.UpdatedAt.Sub(into.UpdatedAt); waited != 7*time.Second {
		t.Errorf("the changes into and out of input_required are %v apart, want the 7s the clock moved", waited)
	}
	if !out.PrevUpdatedAt.Equal(into.UpdatedAt) {
		t.Errorf("the change out of input_required has PrevUpdatedAt %v, want %v, when the task entered it", out.PrevUpdatedAt, into.UpdatedAt)
	}
	if created := got[want[0]]; !created.PrevUpdatedAt.IsZero() || !into.PrevUpdatedAt.Equal(created.UpdatedAt) {
		t.Errorf("PrevUpdatedAt is %v at the creation and %v entering input_required, want zero and the creation's %v",
			created.PrevUpdatedAt, into.PrevUpdatedAt, created.UpdatedAt)
	}
	if last := got[want[3]]; !last.IsError {
		t.Errorf("the completion of a task whose result is a tool error has IsError false: %+v", last)
	}
	if obs.transitions != 0 {
		t.Errorf("a TaskObserver got %d TaskTransition calls, want none (TaskChanged replaces it)", obs.transitions)
	}
}

func TestTaskObserverLearnsOfADeletionByTheTasksNamesAlone(t *testing.T) {
	c := newCluster(t)
	obs := &changeObserver{}
	rt := c.instance("a", tasks.WithObserver(obs), tasks.WithTTL(time.Minute, time.Hour))
	returning(rt, "job", nil, tasks.Result{Value: raw(`{"done":true}`)}, nil)
	task := start(t, rt, "alice", "job")
	wait(t, rt, "alice", task.ID)
	c.clock.Advance(time.Minute)
	var deleted tasks.TaskChange
	obs.wait(t, "the sweep to delete the finished task", func() bool {
		obs.mu.Lock()
		defer obs.mu.Unlock()
		for _, ch := range obs.changes {
			if ch.To == "" {
				deleted = ch
				return true
			}
		}
		return false
	})
	want := tasks.TaskChange{ID: task.ID, Method: "tools/call", Name: "job", From: tasks.StatusCompleted}
	if deleted.ID != want.ID || deleted.Method != want.Method || deleted.Name != want.Name || deleted.From != want.From ||
		!deleted.CreatedAt.IsZero() || !deleted.UpdatedAt.IsZero() || !deleted.PrevUpdatedAt.IsZero() {
		t.Errorf("the deletion was reported as %+v, want %+v: the task's names and last status, no times", deleted, want)
	}
}
