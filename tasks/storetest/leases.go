package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/weftmcp/weft/tasks"
)

// testRenewLeases checks tasks.LeaseRenewer, for a store that has it.
func testRenewLeases(t *testing.T, open pairOpener) {
	a, b := open(t)
	renewer, ok := a.(tasks.LeaseRenewer)
	if !ok {
		t.Skipf("%T is not a tasks.LeaseRenewer", a)
	}
	ctx := context.Background()
	leased := func(owner string, status tasks.Status) *tasks.Record {
		rec := newRecord("alice")
		rec.Owner = owner
		return createIn(t, a, rec, status)
	}
	mine := []*tasks.Record{leased("instance-a", tasks.StatusWorking), leased("instance-a", tasks.StatusInputRequired)}
	others := leased("instance-b", tasks.StatusWorking)
	finished := leased("instance-a", tasks.StatusCompleted)
	missing := newRecord("alice").ID
	ids := []string{mine[0].ID, others.ID, finished.ID, missing, mine[1].ID}
	until := epoch.Add(time.Minute)

	renewed, err := renewer.RenewLeases(ctx, "instance-a", ids, until)
	if err != nil {
		t.Fatalf("RenewLeases: %v", err)
	}
	sameIDs(t, "RenewLeases", renewed, mine[0].ID, mine[1].ID)
	for _, before := range mine {
		want := before.Clone()
		want.LeaseExpiresAt, want.Version = until, before.Version+1
		sameRecord(t, get(t, b, before.ID), want)
	}
	for what, before := range map[string]*tasks.Record{"another instance's": others, "a finished": finished} {
		if after := get(t, b, before.ID); !after.LeaseExpiresAt.Equal(before.LeaseExpiresAt) || after.Version != before.Version {
			t.Errorf("RenewLeases changed %s task: lease %v at version %d, want %v at version %d",
				what, after.LeaseExpiresAt, after.Version, before.LeaseExpiresAt, before.Version)
		}
	}
	if _, err := b.Get(ctx, missing); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("RenewLeases of a missing task: Get returned %v, want ErrNotFound", err)
	}
	got, err := b.LeaseExpired(ctx, epoch.Add(59*time.Second), 100)
	if err != nil {
		t.Fatalf("LeaseExpired: %v", err)
	}
	sameIDs(t, "LeaseExpired before the renewed leases lapse", got, others.ID)

	// A renewal is a write like any other: a change read before it conflicts.
	stale := mine[0].Clone()
	stale.StatusMessage = "from a read before the renewal"
	if err := b.Update(ctx, stale); !errors.Is(err, tasks.ErrConflict) {
		t.Errorf("Update of a version read before RenewLeases: got %v, want ErrConflict", err)
	}

	if renewed, err := renewer.RenewLeases(ctx, "instance-a", nil, until); err != nil || len(renewed) != 0 {
		t.Errorf("RenewLeases of no tasks: %v, %v; want none and no error", renewed, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := renewer.RenewLeases(cancelled, "instance-a", ids, until.Add(time.Minute)); !errors.Is(err, context.Canceled) {
		t.Errorf("RenewLeases with a cancelled context: got %v, want an error wrapping context.Canceled", err)
	}
	if after := get(t, b, mine[0].ID); !after.LeaseExpiresAt.Equal(until) {
		t.Errorf("RenewLeases with a cancelled context renewed a lease to %v", after.LeaseExpiresAt)
	}
}

// renewAll renews the leases of one owner in batches, as a Runtime's
// heartbeat does, and fails unless every one was renewed.
func renewAll(tb testing.TB, renewer tasks.LeaseRenewer, owner string, ids []string, batch int, until time.Time) {
	for from := 0; from < len(ids); from += batch {
		chunk := ids[from:min(from+batch, len(ids))]
		renewed, err := renewer.RenewLeases(context.Background(), owner, chunk, until)
		if err != nil {
			tb.Fatalf("RenewLeases: %v", err)
		}
		if len(renewed) != len(chunk) {
			tb.Fatalf("RenewLeases renewed %d of %d leases", len(renewed), len(chunk))
		}
	}
}

// BenchRenewLeases measures renewing n leases held by one instance, in
// the Runtime's batches of 500, with store and fails unless every lease
// is renewed. It reports ms/renewal-of-all: compare it with the lease
// (30 s by default) it must stay well under.
func BenchRenewLeases(b *testing.B, store tasks.Store, n int) {
	renewer, ok := store.(tasks.LeaseRenewer)
	if !ok {
		b.Skipf("%T is not a tasks.LeaseRenewer", store)
	}
	ids := make([]string, n)
	for i := range ids {
		rec := newRecord(fmt.Sprint("client-", i%100))
		rec.Owner = "instance-a"
		if err := store.Create(context.Background(), rec, tasks.Quota{}); err != nil {
			b.Fatalf("Create: %v", err)
		}
		ids[i] = rec.ID
	}
	until := epoch
	b.ResetTimer()
	for b.Loop() {
		until = until.Add(time.Second)
		renewAll(b, renewer, "instance-a", ids, 500, until)
	}
}
