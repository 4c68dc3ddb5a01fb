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

// keepingStore is a MemoryStore that remembers every record it shares
// with the Runtime, each beside a copy taken when it was shared.
type keepingStore struct {
	*MemoryStore
	mu     sync.Mutex
	shared map[*Record]*Record
}

func (s *keepingStore) keep(rec *Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.shared[rec]; !ok {
		s.shared[rec] = rec.Clone()
	}
}

func (s *keepingStore) getShared(ctx context.Context, id string) (*Record, error) {
	rec, err := s.MemoryStore.getShared(ctx, id)
	if err == nil {
		s.keep(rec)
	}
	return rec, err
}

func (s *keepingStore) createShared(ctx context.Context, rec *Record, quota Quota) error {
	err := s.MemoryStore.createShared(ctx, rec, quota)
	if err == nil {
		s.keep(rec)
	}
	return err
}

func (s *keepingStore) updateShared(ctx context.Context, rec *Record) error {
	err := s.MemoryStore.updateShared(ctx, rec)
	if err == nil {
		s.keep(rec)
	}
	return err
}

// A record the Runtime shares with a MemoryStore is never changed once
// shared, through a life that asks for input, is answered, reports
// progress and completes: the Runtime changes only its own copies.
func TestSharedRecordsAreNeverChanged(t *testing.T) {
	store := &keepingStore{MemoryStore: NewMemoryStore(), shared: make(map[*Record]*Record)}
	rt, err := New(store, NewMemoryBus(), WithRecordCache(0), WithLogger(slog.New(slog.DiscardHandler)),
		WithProgressInterval(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	if rt.cache.shared == nil {
		t.Fatal("the Runtime does not share the store's records")
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
	for got, err := range rt.Watch(ctx, "alice", task.ID) {
		if err != nil {
			t.Fatal(err)
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
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.shared) < 4 {
		t.Fatalf("%d records were shared, want at least 4 (created, input asked, answered, completed)", len(store.shared))
	}
	for rec, was := range store.shared {
		if !reflect.DeepEqual(rec, was) {
			t.Errorf("a shared record changed after it was shared:\n now %+v\n was %+v", rec, was)
		}
	}
}
