package tasks_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

func TestPrincipalsCannotReachEachOthersTasks(t *testing.T) {
	c := newCluster(t)
	a, b := c.instance("a"), c.instance("b")
	a.Register("tools/call", "confirm_delete", func(ctx context.Context, x *tasks.Exec) (tasks.Result, error) {
		resp, err := x.Ask(ctx, askConfirm)
		if err != nil {
			return tasks.Result{}, err
		}
		return tasks.Result{Value: resp}, nil
	}, tasks.Policy{})
	task := start(t, a, "alice", "confirm_delete")
	waitFor(t, a, "alice", task.ID, "the input request", outstanding(1))

	// What bob gets for alice's real ID must be exactly what anyone gets
	// for an ID that does not exist.
	probe := func(id string) []error {
		ctx := testCtx(t)
		_, getErr := b.Get(ctx, "bob", id)
		_, cancelErr := b.Cancel(ctx, "bob", id)
		answerErr := b.Answer(ctx, "bob", id, map[string]json.RawMessage{"input-1": raw(`{"action":"accept","content":{"confirm":true}}`)})
		_, waitErr := b.Wait(ctx, "bob", id)
		var watchErr error
		for _, err := range b.Watch(ctx, "bob", id) {
			watchErr = err
		}
		return []error{getErr, cancelErr, answerErr, waitErr, watchErr}
	}
	foreign, missing := probe(task.ID), probe(rand.Text())
	for i := range foreign {
		if !errors.Is(foreign[i], tasks.ErrNotFound) || foreign[i].Error() != missing[i].Error() {
			t.Fatalf("call %d on another principal's task: %v; on a missing task: %v; want the same ErrNotFound", i, foreign[i], missing[i])
		}
	}
	if list, _, err := b.List(testCtx(t), "bob", ""); err != nil || len(list) != 0 {
		t.Fatalf("bob's list holds %d tasks (%v), want none", len(list), err)
	}
	if list, _, err := b.List(testCtx(t), "alice", ""); err != nil || len(list) != 1 || list[0].ID != task.ID {
		t.Fatalf("alice's list: %+v (%v), want her one task", list, err)
	}
	// Nothing bob did reached the task.
	got, err := a.Get(testCtx(t), "alice", task.ID)
	if err != nil || got.Status != tasks.StatusInputRequired || len(got.InputRequests) != 1 {
		t.Fatalf("after bob's attempts alice's task is %s with %d requests (%v), want untouched", got.Status, len(got.InputRequests), err)
	}
	if _, err := a.Cancel(testCtx(t), "alice", task.ID); err != nil {
		t.Fatalf("alice's Cancel: %v", err)
	}
}

func TestListPagesThroughAPrincipalsTasks(t *testing.T) {
	c := newCluster(t)
	rt := c.instance("a", tasks.WithPageSize(4))
	returning(rt, "job", nil, tasks.Result{Value: raw(`{}`)}, nil)
	want := map[string]bool{}
	for range 10 {
		want[start(t, rt, "alice", "job").ID] = true
		start(t, rt, "bob", "job")
	}
	got := map[string]bool{}
	cursor := ""
	for {
		page, next, err := rt.List(testCtx(t), "alice", cursor)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if len(page) > 4 {
			t.Fatalf("a page holds %d tasks, more than the page size", len(page))
		}
		for _, task := range page {
			if !want[task.ID] || got[task.ID] {
				t.Fatalf("List returned %s, which is not alice's or was already listed", task.ID)
			}
			got[task.ID] = true
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if len(got) != len(want) {
		t.Fatalf("List returned %d of alice's %d tasks", len(got), len(want))
	}
	if _, _, err := rt.List(testCtx(t), "alice", "bogus"); !errors.Is(err, tasks.ErrInvalidCursor) {
		t.Fatalf("List with a bogus cursor: got %v, want ErrInvalidCursor", err)
	}
}
