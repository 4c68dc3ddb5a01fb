package tasks

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"
)

// keptRecords remembers records by identity, each beside a copy taken
// when it was first seen, to show later that none was changed.
type keptRecords struct {
	mu   sync.Mutex
	recs map[*Record]*Record
}

// keep remembers rec, unless it is remembered already.
func (k *keptRecords) keep(rec *Record) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.recs == nil {
		k.recs = make(map[*Record]*Record)
	}
	if _, ok := k.recs[rec]; !ok {
		k.recs[rec] = rec.Clone()
	}
}

// checkUnchanged fails unless at least least records were kept, and each
// is as it was when kept; what names them in a failure.
func (k *keptRecords) checkUnchanged(t *testing.T, what string, least int) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.recs) < least {
		t.Fatalf("%d records %s, want at least %d", len(k.recs), what, least)
	}
	for rec, was := range k.recs {
		if !reflect.DeepEqual(rec, was) {
			t.Errorf("a record %s changed afterwards:\n now %+v\n was %+v", what, rec, was)
		}
	}
}

// runAskingLife runs a task through a life that reports progress, asks
// for input, is answered, reports progress again and completes, calling
// seen with each state the task is watched in; it fails unless the task
// completes with the answer.
func runAskingLife(t *testing.T, rt *Runtime, seen func(Task)) {
	t.Helper()
	rt.Register("tools/call", "ask", func(ctx context.Context, x *Exec) (Result, error) {
		x.Progress("asking")
		answer, err := x.Ask(ctx, json.RawMessage(`{"method":"elicitation/create","params":{"message":"Name?"}}`))
		if err != nil {
			return Result{}, err
		}
		x.Progress("answered")
		return Result{Value: json.RawMessage(`{"answer":` + string(answer) + `}`)}, nil
	}, Policy{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	task, err := rt.Start(ctx, StartRequest{Principal: "alice", Method: "tools/call", Name: "ask", Params: json.RawMessage(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	for got, err := range rt.Watch(ctx, "alice", task.ID) {
		if err != nil {
			t.Fatal(err)
		}
		seen(got)
		if got.Status == StatusInputRequired {
			if err := rt.Answer(ctx, "alice", task.ID, map[string]json.RawMessage{got.InputRequests[0].Key: json.RawMessage(`"Ann"`)}); err != nil {
				t.Fatal(err)
			}
		}
		if got.Terminal() {
			if got.Status != StatusCompleted || string(got.Result) != `{"answer":"Ann"}` {
				t.Fatalf("the task ended %s with %s, want completed with the answer", got.Status, got.Result)
			}
			return
		}
	}
	t.Fatal("the watch ended before the task finished")
}
