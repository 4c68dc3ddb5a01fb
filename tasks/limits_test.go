package tasks_test

import (
	"errors"
	"testing"

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
