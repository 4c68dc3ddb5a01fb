package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/weftmcp/weft/tasks"
)

// SignallingInstance opens one instance's view of a fresh backing service:
// a SignallingStore and the Bus its writes signal on, as a server
// instance holds them (for Redis, one client given to both).
type SignallingInstance func() (tasks.SignallingStore, tasks.Bus)

// TestSignallingStore runs the SignallingStore contract. open returns a
// factory of instances on one fresh backing service per subtest. Signals
// are checked through a second instance's Bus, whose listener must
// receive the messages of one channel in the order they were sent.
func TestSignallingStore(t *testing.T, open func(t *testing.T) SignallingInstance) {
	tests := []struct {
		name string
		fn   func(*testing.T, SignallingInstance)
	}{
		{"PairsOnlyWithItsBus", testSignallingPairs},
		{"WritesReachOtherInstances", testSignallingWrites},
		{"RefusedWritesSendNothing", testSignallingRefusals},
		{"UnpairedRuntimeSaysSo", testSignallingUnpairedLog},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

// pairedRelay returns the RelayBus the store's writes signal on, failing
// the test when the store does not pair with bus.
func pairedRelay(t *testing.T, s tasks.SignallingStore, bus tasks.Bus) *tasks.RelayBus {
	t.Helper()
	relay := s.SignalsTo(bus)
	if relay == nil {
		t.Fatalf("SignalsTo(the instance's own Bus) is nil: its writes would not carry signals")
	}
	return relay
}

func testSignallingPairs(t *testing.T, instance SignallingInstance) {
	s, bus := instance()
	pairedRelay(t, s, bus)
	if relay := s.SignalsTo(tasks.NewMemoryBus()); relay != nil {
		t.Fatalf("SignalsTo(a MemoryBus) = %p; want nil: the store's writes cannot reach it", relay)
	}
}

// signallingRig is two instances on one service and a record not yet
// created, whose signals the second instance's Bus is subscribed to.
type signallingRig struct {
	s          tasks.SignallingStore
	bus        tasks.Bus
	relay      *tasks.RelayBus
	otherStore tasks.SignallingStore
	sub        tasks.Subscription
	rec        *tasks.Record
}

func newSignallingRig(t *testing.T, instance SignallingInstance) signallingRig {
	r := signallingRig{rec: newRecord("alice")}
	r.s, r.bus = instance()
	r.relay = pairedRelay(t, r.s, r.bus)
	var other tasks.Bus
	r.otherStore, other = instance()
	r.sub = subscribe(t, other, r.rec.ID)
	return r
}

func testSignallingWrites(t *testing.T, instance SignallingInstance) {
	r := newSignallingRig(t, instance)
	s, relay, rec, sub := r.s, r.relay, r.rec, r.sub
	ctx := context.Background()

	created := tasks.Signal{TaskID: rec.ID, Kind: tasks.SignalCreated}
	if err := s.CreateSignalling(ctx, rec, tasks.Quota{}, relay.Message(created)); err != nil {
		t.Fatalf("CreateSignalling: %v", err)
	}
	if got := receive(t, sub); got != created {
		t.Fatalf("after CreateSignalling the other instance received %+v; want %+v", got, created)
	}

	rec.StatusMessage = "half way"
	rec.UpdatedAt = rec.UpdatedAt.Add(1)
	status := tasks.Signal{TaskID: rec.ID, Kind: tasks.SignalStatus}
	if err := s.UpdateSignalling(ctx, rec, relay.Message(status)); err != nil {
		t.Fatalf("UpdateSignalling: %v", err)
	}
	if got := receive(t, sub); got != status {
		t.Fatalf("after UpdateSignalling the other instance received %+v; want %+v", got, status)
	}
	if got, err := s.Get(ctx, rec.ID); err != nil || got.StatusMessage != "half way" || got.Version != 2 {
		t.Fatalf("after UpdateSignalling Get = %+v, %v; want the message %q at version 2", got, err, "half way")
	}

	// Asking the client something writes an input request too: a write of
	// its own kind in some drivers, which must signal all the same.
	rec.Status = tasks.StatusInputRequired
	rec.Inputs = []tasks.Input{{Key: "k", Request: json.RawMessage(`{"method":"roots/list"}`)}}
	rec.UpdatedAt = rec.UpdatedAt.Add(1)
	if err := s.UpdateSignalling(ctx, rec, relay.Message(status)); err != nil {
		t.Fatalf("UpdateSignalling adding an input request: %v", err)
	}
	if got := receive(t, sub); got != status {
		t.Fatalf("after UpdateSignalling added an input request the other instance received %+v; want %+v", got, status)
	}
	if got, err := s.Get(ctx, rec.ID); err != nil || len(got.Inputs) != 1 || got.Version != 3 {
		t.Fatalf("after UpdateSignalling added an input request Get = %+v, %v; want it at version 3", got, err)
	}
}

func testSignallingRefusals(t *testing.T, instance SignallingInstance) {
	r := newSignallingRig(t, instance)
	s, bus, relay, otherStore, rec, sub := r.s, r.bus, r.relay, r.otherStore, r.rec, r.sub
	ctx := context.Background()
	create(t, s, rec)
	// The other instance moves the task on: s, which wrote version 1 and
	// may remember it, finds out only in its write.
	moved := rec.Clone()
	moved.StatusMessage = "moved on"
	if err := otherStore.Update(ctx, moved); err != nil {
		t.Fatalf("Update: %v", err)
	}

	refused := func(what string, err error, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Fatalf("%s: %v; want %v", what, err, want)
		}
	}
	msg := func(kind tasks.SignalKind) string { return relay.Message(tasks.Signal{TaskID: rec.ID, Kind: kind}) }
	again := rec.Clone()
	again.Version = 0
	refused("CreateSignalling of a taken ID",
		s.CreateSignalling(ctx, again, tasks.Quota{}, msg(tasks.SignalCreated)), tasks.ErrExists)
	full := newRecord("alice")
	refused("CreateSignalling beyond the quota",
		s.CreateSignalling(ctx, full, tasks.Quota{PerPrincipal: 1}, msg(tasks.SignalCreated)), tasks.ErrLimit)
	stale := rec.Clone()
	stale.StatusMessage = "stale"
	refused("UpdateSignalling at an old version",
		s.UpdateSignalling(ctx, stale, msg(tasks.SignalStatus)), tasks.ErrConflict)
	finished := moved.Clone()
	finish(finished, tasks.StatusCompleted)
	if err := otherStore.Update(ctx, finished); err != nil {
		t.Fatalf("Update to completed: %v", err)
	}
	late := finished.Clone()
	late.Status = tasks.StatusWorking
	refused("UpdateSignalling of a finished task",
		s.UpdateSignalling(ctx, late, msg(tasks.SignalStatus)), tasks.ErrTerminal)

	// A message a refused write had sent would arrive before this one.
	marker := tasks.Signal{TaskID: rec.ID, Kind: tasks.SignalCancel}
	publish(t, bus, marker.TaskID, marker.Kind)
	if got := receive(t, sub); got != marker {
		t.Fatalf("the other instance received %+v before the signal published after the refused writes; a refused write sent it", got)
	}
}

// testSignallingUnpairedLog checks that a Runtime whose Store could carry
// its writes' signals, but not to the Bus it was given, says so when it
// starts, with what to change, and that a paired one says nothing of it.
func testSignallingUnpairedLog(t *testing.T, instance SignallingInstance) {
	s, bus := instance()
	for _, tc := range []struct {
		name   string
		bus    tasks.Bus
		unpair bool
	}{
		{"a MemoryBus", tasks.NewMemoryBus(), true},
		{"the Store's own Bus", bus, false},
	} {
		var log bytes.Buffer
		rt, err := tasks.New(s, tc.bus, tasks.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		if err != nil {
			t.Fatal(err)
		}
		if err := rt.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(log.String(), "cannot carry their signals to this Bus")
		if said != tc.unpair {
			t.Errorf("with %s, the Runtime's log says %q; want the unpaired Store named: %v", tc.name, log.String(), tc.unpair)
		}
	}
}
