package tasks_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

func TestObserverSeesTransitionsLeasesAndStoreCalls(t *testing.T) {
	c := newCluster(t)
	obs := newCountingObserver()
	rt := c.instance("a", tasks.WithObserver(obs))
	rt.Register("tools/call", "ask", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		resp, err := x.Ask(ctx, askConfirm)
		if err != nil {
			return tasks.Result{}, err
		}
		return tasks.Result{Value: resp}, nil
	}, tasks.Policy{})
	task := start(t, rt, "alice", "ask")
	waitFor(t, rt, "alice", task.ID, "the input request", outstanding(1))
	obs.wait(t, "a lease renewal and a sweep (Expired and LeaseExpired store calls)", func() (done bool) {
		obs.read(func() { done = obs.renewed > 0 && obs.calls["Expired"] > 0 && obs.calls["LeaseExpired"] > 0 })
		return done
	})
	if err := rt.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{"input-1": raw(`{"action":"accept"}`)}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	wait(t, rt, "alice", task.ID)
	obs.wait(t, "a whole sweep", func() (done bool) {
		obs.read(func() { done = obs.calls["LeaseExpired"] > 0 })
		return done
	})

	obs.read(func() {
		want := map[[2]tasks.Status]int{
			{"", tasks.StatusWorking}:                        1,
			{tasks.StatusWorking, tasks.StatusInputRequired}: 1,
			{tasks.StatusInputRequired, tasks.StatusWorking}: 1,
			{tasks.StatusWorking, tasks.StatusCompleted}:     1,
		}
		for tr, n := range want {
			if obs.transitions[tr] != n {
				t.Errorf("transition %s → %s reported %d times, want %d", tr[0], tr[1], obs.transitions[tr], n)
			}
		}
		if len(obs.transitions) != len(want) {
			t.Errorf("transitions reported: %v, want only %v", obs.transitions, want)
		}
		for _, op := range []string{"Create", "Get", "Update", "DeleteExpired", "Expired", "LeaseExpired"} {
			if obs.calls[op] == 0 {
				t.Errorf("no %s store call was reported", op)
			}
		}
		if len(obs.failedCalls) != 0 || obs.lost != 0 {
			t.Errorf("reported failed store calls %q and %d lost leases, want none", obs.failedCalls, obs.lost)
		}
	})
}
