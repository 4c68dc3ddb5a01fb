package tasks

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"
)

// ownedStore is a MemoryStore behind the Store interface alone, so that
// the Runtime does not share its records: records come to the Runtime
// through the record cache, as from Redis or PostgreSQL. It remembers each
// record the Runtime wrote, beside a copy taken when it was written.
type ownedStore struct {
	Store
	mu      sync.Mutex
	written map[*Record]*Record
}

func (s *ownedStore) keep(rec *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.written[rec]; !ok {
		s.written[rec] = rec.Clone()
	}
}

func (s *ownedStore) Create(ctx context.Context, rec *Record, quota Quota) error {
	err := s.Store.Create(ctx, rec, quota)
	if err == nil {
		s.keep(rec)
	}
	return err
}

func (s *ownedStore) Update(ctx context.Context, rec *Record) error {
	err := s.Store.Update(ctx, rec)
	if err == nil {
		s.keep(rec)
	}
	return err
}

// The record cache hands a reader that changes nothing (peek: every Get
// and poll) its own copy, not a clone, and keeps the records the Runtime
// writes without a copy: neither a record handed out nor one written is
// changed afterwards, through a life that asks for input, is answered,
// reports progress and completes.
func TestCachedRecordsAreNeverChanged(t *testing.T) {
	store := &ownedStore{Store: NewMemoryStore(), written: make(map[*Record]*Record)}
	rt, err := New(store, NewMemoryBus(), WithRecordCache(DefaultRecordCache),
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
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.written) < 4 {
		t.Fatalf("%d records were written, want at least 4 (created, input asked, answered, completed)", len(store.written))
	}
	for rec, was := range store.written {
		if !reflect.DeepEqual(rec, was) {
			t.Errorf("a record the Runtime wrote (and the cache keeps) changed afterwards:\n now %+v\n was %+v", rec, was)
		}
	}
}
