package tasks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

func TestConcurrencyLimitsHoldAcrossInstances(t *testing.T) {
	c := newCluster(t)
	a := c.instance("a", tasks.WithLimits(2, 3))
	b := c.instance("b", tasks.WithLimits(2, 3))
	release := make(chan struct{})
	for _, rt := range []*tasks.Runtime{a, b} {
		returning(rt, "job", release, tasks.Result{Value: raw(`{}`)}, nil)
	}
	first := start(t, a, "alice", "job")
	start(t, b, "alice", "job")

	var lim *tasks.LimitError
	_, err := b.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job"})
	if !errors.As(err, &lim) || lim.Scope != tasks.LimitPrincipal || lim.Limit != 2 {
		t.Fatalf("alice's third task: got %v, want a *LimitError for the principal", err)
	}
	start(t, a, "bob", "job")
	_, err = a.Start(testCtx(t), tasks.StartRequest{Principal: "carol", Method: "tools/call", Name: "job"})
	if !errors.As(err, &lim) || lim.Scope != tasks.LimitTotal || lim.Limit != 3 {
		t.Fatalf("the fourth task in all: got %v, want a *LimitError for the total", err)
	}
	for _, who := range []string{"alice", "carol"} {
		list, _, err := a.List(testCtx(t), who, "")
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if want := map[string]int{"alice": 2, "carol": 0}[who]; len(list) != want {
			t.Fatalf("refused Starts left %s with %d tasks, want %d", who, len(list), want)
		}
	}

	if _, err := a.Cancel(testCtx(t), "alice", first.ID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	start(t, b, "alice", "job") // the cancelled task freed a slot
	close(release)
}

// quotaSpy is a MemoryStore that keeps the quota of the last Create.
type quotaSpy struct {
	*tasks.MemoryStore
	quota chan tasks.Quota
}

func (s quotaSpy) Create(ctx context.Context, rec *tasks.Record, q tasks.Quota) error {
	s.quota <- q
	return s.MemoryStore.Create(ctx, rec, q)
}

func TestDefaultLimitsBoundUnfinishedTasks(t *testing.T) {
	c := newCluster(t)
	spy := quotaSpy{MemoryStore: tasks.NewMemoryStore(), quota: make(chan tasks.Quota, 1)}
	rt := c.instanceOn(spy, "a", tasks.WithLease(time.Hour, time.Minute))
	release := make(chan struct{})
	defer close(release)
	returning(rt, "job", release, tasks.Result{Value: raw(`{}`)}, nil)
	want := tasks.Quota{PerPrincipal: tasks.DefaultMaxTasksPerPrincipal, Total: tasks.DefaultMaxTasks}
	var lim *tasks.LimitError
	for i := 0; ; i++ {
		_, err := rt.Start(testCtx(t), tasks.StartRequest{Principal: "alice", Method: "tools/call", Name: "job"})
		if q := <-spy.quota; q != want {
			t.Fatalf("Start asked the store for quota %+v, want the defaults %+v", q, want)
		}
		if err == nil {
			continue
		}
		if !errors.As(err, &lim) || lim.Scope != tasks.LimitPrincipal || i != tasks.DefaultMaxTasksPerPrincipal {
			t.Fatalf("alice's task %d: %v; want a *LimitError for the principal at task %d",
				i+1, err, tasks.DefaultMaxTasksPerPrincipal+1)
		}
		break
	}
}
