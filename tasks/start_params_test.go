package tasks_test

import (
	"context"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// TestStartCopiesParamsUnlessHandedOver pins what Start does with a
// request's params: it checks and copies them, so the caller may reuse its
// buffer, unless they are handed over, when the task keeps the caller's
// bytes themselves.
func TestStartCopiesParamsUnlessHandedOver(t *testing.T) {
	rt := newCluster(t).instance("a")
	rt.Register("tools/call", "job", func(context.Context, *tasks.Exec) (tasks.Result, error) {
		return tasks.Result{Value: raw(`{}`)}, nil
	}, tasks.Policy{})
	ctx := testCtx(t)
	startWith := func(params []byte, handedOver bool) (tasks.Task, error) {
		return rt.Start(ctx, tasks.StartRequest{Principal: "p", Method: "tools/call", Name: "job", Params: params, ParamsHandedOver: handedOver})
	}

	own := raw(`{"n": 1}`)
	task, err := startWith(own, false)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if string(task.Params) != `{"n": 1}` || &task.Params[0] == &own[0] {
		t.Errorf("params not handed over: the task holds %q at %p, the caller's are at %p; want a copy", task.Params, &task.Params[0], &own[0])
	}
	if _, err := startWith(raw(`{"n":`), false); err == nil {
		t.Error("Start took params that are not valid JSON")
	}

	handed := raw(`{"n": 2}`)
	task, err = startWith(handed, true)
	if err != nil {
		t.Fatalf("Start, params handed over: %v", err)
	}
	if &task.Params[0] != &handed[0] {
		t.Errorf("params handed over were copied: the task holds them at %p, the caller's are at %p", &task.Params[0], &handed[0])
	}
	if got := wait(t, rt, "p", task.ID); string(got.Params) != `{"n": 2}` {
		t.Errorf("the finished task's params are %q, want the ones handed over", got.Params)
	}
}
