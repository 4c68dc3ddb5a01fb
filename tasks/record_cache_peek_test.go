package tasks

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"testing"
	"time"
)

// ownedStore is a MemoryStore behind the Store interface alone, so that
// the Runtime does not share its records: records come to the Runtime
// through the record cache, as from Redis or PostgreSQL.
type ownedStore struct{ Store }

// The record cache hands a reader that changes nothing (peek: every Get
// and poll) its own copy, not a clone, and a copy it has handed out is
// never changed afterwards, through a life that asks for input, is
// answered, reports progress and completes.
func TestCachedRecordsHandedToReadersAreNeverChanged(t *testing.T) {
	rt, err := New(ownedStore{NewMemoryStore()}, NewMemoryBus(), WithRecordCache(DefaultRecordCache),
		WithLogger(slog.New(slog.DiscardHandler)), WithProgressInterval(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	if rt.cache.shared != nil {
		t.Fatal("the Runtime shares the wrapped store's records; the test needs them owned")
	}
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

	handed := make(map[*Record]*Record) // each record a reader got, beside a copy taken then
	peek := func() *Record {
		rec, err := rt.cache.peek(ctx, task.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := handed[rec]; !ok {
			handed[rec] = rec.Clone()
		}
		return rec
	}
	sameCopies := 0
	for got, err := range rt.Watch(ctx, "alice", task.ID) {
		if err != nil {
			t.Fatal(err)
		}
		if peek() == peek() {
			sameCopies++
		}
		if got.Status == StatusInputRequired {
			if err := rt.Answer(ctx, "alice", task.ID, map[string]json.RawMessage{got.InputRequests[0].Key: json.RawMessage(`"Ann"`)}); err != nil {
				t.Fatal(err)
			}
		}
		if got.Terminal() {
			if got.Status != StatusCompleted || string(got.Result) != `{"answer":"Ann"}` {
				t.Fatalf("the task ended %s with %s, want completed with the answer", got.Status, got.Result)
			}
			break
		}
	}
	if sameCopies == 0 {
		t.Error("two reads in a row of a cached task never returned the cache's own copy: every read cloned it")
	}
	if len(handed) < 2 {
		t.Fatalf("%d records were handed out, want at least 2 (before and after the answer)", len(handed))
	}
	for rec, was := range handed {
		if !reflect.DeepEqual(rec, was) {
			t.Errorf("a record handed to a reader changed afterwards:\n now %+v\n was %+v", rec, was)
		}
	}
}
