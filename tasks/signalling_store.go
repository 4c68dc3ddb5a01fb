package tasks

import (
	"context"
	"time"
)

// SignallingStore is the optional Store interface of a driver whose writes
// can carry their own signal to the other instances, inside the write's
// round trip: a PUBLISH in the Redis script, a pg_notify in the
// PostgreSQL statement. Without it a write and the signal that follows it
// are two round trips to the service; on Redis the two PUBLISHes of a
// task's life were 18% of the process's CPU in BenchmarkPolledTaskLife at
// 1 in flight.
//
// The Runtime uses it only when SignalsTo says the store's writes reach its
// Bus. A driver must pass storetest.TestSignallingStore.
type SignallingStore interface {
	Store
	// SignalsTo returns the RelayBus inside bus when the store's writes
	// can send its messages: bus is the driver's own Bus, listening on the
	// channel the store would send on, on the same service. Otherwise nil:
	// the Runtime then publishes every signal through the Bus.
	SignalsTo(bus Bus) *RelayBus
	// CreateSignalling is Create that, when it stores rec, sends msg on the
	// Bus's channel in the same atomic step. A refused create sends nothing.
	CreateSignalling(ctx context.Context, rec *Record, quota Quota, msg string) error
	// UpdateSignalling is Update that, when it writes rec, sends msg on the
	// Bus's channel in the same atomic step. A refused update sends nothing.
	UpdateSignalling(ctx context.Context, rec *Record, msg string) error
}

// signalledWrites are the writes of a Runtime whose Store carries their
// signals (SignallingStore) to its Bus.
type signalledWrites struct {
	store SignallingStore
	relay *RelayBus
	obs   Observer // nil when nothing observes the store's calls
}

// signalling returns the signalled writes of store on bus, or nil when the
// store's writes cannot reach bus.
func signalling(store Store, bus Bus, obs Observer) *signalledWrites {
	s, ok := store.(SignallingStore)
	if !ok {
		return nil
	}
	relay := s.SignalsTo(bus)
	if relay == nil {
		return nil
	}
	if _, nop := obs.(NopObserver); nop {
		obs = nil
	}
	return &signalledWrites{store: s, relay: relay, obs: obs}
}

// create stores rec and sends the signal kind about it to every other
// instance.
func (w *signalledWrites) create(ctx context.Context, rec *Record, quota Quota, kind SignalKind) error {
	start := time.Now()
	err := w.store.CreateSignalling(ctx, rec, quota, w.relay.Message(Signal{TaskID: rec.ID, Kind: kind}))
	if w.obs != nil {
		w.obs.StoreCall("Create", time.Since(start), err)
	}
	return err
}

// update writes rec and sends the signal kind about it to every other
// instance.
func (w *signalledWrites) update(ctx context.Context, rec *Record, kind SignalKind) error {
	start := time.Now()
	err := w.store.UpdateSignalling(ctx, rec, w.relay.Message(Signal{TaskID: rec.ID, Kind: kind}))
	if w.obs != nil {
		w.obs.StoreCall("Update", time.Since(start), err)
	}
	return err
}
