package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

var (
	askName    = raw(`{"method":"elicitation/create","params":{"message":"Your name?"}}`)
	askConfirm = raw(`{"method":"elicitation/create","params":{"message":"Delete?"}}`)
)

func TestInputRoundTripWithPartialAnswers(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	a.Register("tools/call", "multi_input", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		var wg sync.WaitGroup
		answers := make([]json.RawMessage, 2)
		errs := make([]error, 2)
		for i, q := range []json.RawMessage{askName, askConfirm} {
			wg.Go(func() { answers[i], errs[i] = x.Ask(ctx, q) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return tasks.Result{}, err
			}
		}
		return tasks.Result{Value: raw(fmt.Sprintf(`{"name":%s,"confirm":%s}`, answers[0], answers[1]))}, nil
	}, tasks.Policy{})

	task := start(t, a, "alice", "multi_input")
	parked := waitFor(t, b, "alice", task.ID, "two outstanding input requests", outstanding(2))
	keys := map[string]json.RawMessage{}
	for _, in := range parked.InputRequests {
		keys[in.Key] = in.Request
	}
	if len(keys) != 2 || keys["input-1"] == nil || keys["input-2"] == nil {
		t.Fatalf("outstanding keys are %v, want input-1 and input-2", keys)
	}
	nameKey, confirmKey := "input-1", "input-2"
	if string(keys["input-1"]) != string(askName) {
		nameKey, confirmKey = confirmKey, nameKey
	}

	// A partial answer, with an unknown key, from another instance.
	if err := b.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{
		nameKey:    raw(`{"action":"accept","content":{"name":"Alice"}}`),
		"input-99": raw(`{"action":"accept"}`),
	}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	got, err := b.Get(testCtx(t), "alice", task.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Status != tasks.StatusInputRequired || len(got.InputRequests) != 1 || got.InputRequests[0].Key != confirmKey ||
		string(got.InputRequests[0].Request) != string(askConfirm) {
		t.Fatalf("after a partial answer the task is %s with %+v, want input_required with only %s", got.Status, got.InputRequests, confirmKey)
	}

	// Answering the answered key again changes nothing.
	if err := a.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{nameKey: raw(`{"action":"decline"}`)}); err != nil {
		t.Fatalf("Answer of an answered key: %v", err)
	}
	if err := a.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{confirmKey: raw(`{"action":"accept","content":{"confirm":true}}`)}); err != nil {
		t.Fatalf("Answer: %v", err)
	}
	done := wait(t, b, "alice", task.ID)
	want := `{"name":{"action":"accept","content":{"name":"Alice"}},"confirm":{"action":"accept","content":{"confirm":true}}}`
	if done.Status != tasks.StatusCompleted || string(done.Result) != want || len(done.InputRequests) != 0 {
		t.Fatalf("finished as %s with %s, want completed with %s", done.Status, done.Result, want)
	}
	if err := b.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{confirmKey: raw(`{}`)}); err != nil {
		t.Fatalf("Answer to a finished task: got %v, want it ignored", err)
	}
}

func TestSequentialInputMovesBetweenWorkingAndInputRequired(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	// Each phase lasts until the watcher below has seen it and opens a gate.
	gates := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
	a.Register("tools/call", "confirm_delete", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		<-gates[0]
		first, err := x.Ask(ctx, askName)
		if err != nil {
			return tasks.Result{}, err
		}
		x.Progress("got the name")
		<-gates[1]
		second, err := x.Ask(ctx, askConfirm)
		if err != nil {
			return tasks.Result{}, err
		}
		<-gates[2]
		return tasks.Result{Value: raw(fmt.Sprintf(`{"answers":[%s,%s]}`, first, second))}, nil
	}, tasks.Policy{})
	task := start(t, a, "alice", "confirm_delete")

	var statuses []tasks.Status
	gate := 0
	for snap, err := range b.Watch(testCtx(t), "alice", task.ID) {
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		if len(statuses) > 0 && statuses[len(statuses)-1] == snap.Status {
			continue
		}
		statuses = append(statuses, snap.Status)
		switch snap.Status {
		case tasks.StatusWorking:
			close(gates[gate])
			gate++
		case tasks.StatusInputRequired:
			key := snap.InputRequests[0].Key
			if err := b.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{key: raw(`"` + key + `"`)}); err != nil {
				t.Fatalf("Answer: %v", err)
			}
		}
	}
	want := []tasks.Status{tasks.StatusWorking, tasks.StatusInputRequired, tasks.StatusWorking,
		tasks.StatusInputRequired, tasks.StatusWorking, tasks.StatusCompleted}
	if !slices.Equal(statuses, want) {
		t.Fatalf("watched statuses %v, want %v", statuses, want)
	}
	done := wait(t, b, "alice", task.ID)
	if string(done.Result) != `{"answers":["input-1","input-2"]}` {
		t.Fatalf("result %s: the handler did not get each answer under its own key", done.Result)
	}
}

func TestAskAndAnswerRejectMalformedJSON(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a")
	asked := make(chan error, 1)
	rt.Register("tools/call", "job", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		_, err := x.Ask(ctx, raw(`["not","an","object"]`))
		asked <- err
		return tasks.Result{Value: raw(`{}`)}, nil
	}, tasks.Policy{})
	task := start(t, rt, "alice", "job")
	if err := recv(t, asked, "the handler's Ask"); err == nil {
		t.Fatalf("Ask with a request that is not a JSON object succeeded")
	}
	if err := rt.Answer(testCtx(t), "alice", task.ID, map[string]json.RawMessage{"input-1": raw(`{"action":`)}); err == nil {
		t.Fatalf("Answer with a response that is not JSON succeeded")
	}
}
