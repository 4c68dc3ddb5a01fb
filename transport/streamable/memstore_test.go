package streamable

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestMemoryEventStoreReplaysAfterAnIndex(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryEventStore(0)
	for i := uint64(1); i <= 3; i++ {
		if err := s.Append(ctx, "s", 1, i, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	s.Append(ctx, "s", 2, 1, []byte("other stream"))
	got, err := s.After(ctx, "s", 1, 1)
	if err != nil || len(got) != 2 || string(got[0]) != "2" || string(got[1]) != "3" {
		t.Fatalf("After(1) = %q, %v; want 2 and 3", got, err)
	}
	if got, err := s.After(ctx, "s", 1, 3); err != nil || len(got) != 0 {
		t.Fatalf("After(last) = %q, %v; want nothing", got, err)
	}
	if got, err := s.After(ctx, "other", 1, 0); err != nil || len(got) != 0 {
		t.Fatalf("another session's stream: %q, %v", got, err)
	}
	if err := s.Append(ctx, "s", 1, 9, nil); err == nil {
		t.Fatal("an out-of-order append was accepted")
	}
}

func TestMemoryEventStoreCopiesData(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryEventStore(0)
	data := []byte("abc")
	s.Append(ctx, "s", 0, 1, data)
	data[0] = 'X'
	got, _ := s.After(ctx, "s", 0, 0)
	if string(got[0]) != "abc" {
		t.Fatalf("the store kept the caller's buffer: %q", got[0])
	}
}

func TestMemoryEventStoreEvictsOldestBeyondItsBound(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryEventStore(10)
	for i := uint64(1); i <= 4; i++ {
		s.Append(ctx, "a", 1, i, []byte("xxxx")) // 4 bytes each: only two fit
	}
	if _, err := s.After(ctx, "a", 1, 0); !errors.Is(err, ErrEventsGone) {
		t.Fatalf("resuming before evicted events: %v, want ErrEventsGone", err)
	}
	got, err := s.After(ctx, "a", 1, 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("the newest events: %q, %v", got, err)
	}
	if s.bytes > 10 {
		t.Fatalf("the store holds %d bytes over its bound of 10", s.bytes)
	}
}

func TestMemoryEventStoreDeleteSessionReleasesItsEvents(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryEventStore(1 << 20)
	for n := 0; n < 3000; n++ {
		session := fmt.Sprint("s", n)
		s.Append(ctx, session, 0, 1, []byte("data"))
		s.DeleteSession(ctx, session)
	}
	if s.bytes != 0 || len(s.sessions) != 0 {
		t.Fatalf("after deleting every session: %d bytes, %d sessions", s.bytes, len(s.sessions))
	}
	if live := len(s.order) - s.head; live > 1024 {
		t.Fatalf("the eviction queue kept %d entries of deleted sessions", live)
	}
}
