package redis_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
)

// A Store and a Bus on one client and prefix are paired: the Store's
// scripts publish the signals of their writes.
func TestSignallingStoreContract(t *testing.T) {
	storetest.TestSignallingStore(t, func(t *testing.T) storetest.SignallingInstance {
		needRedis(t)
		prefix := newPrefix(t)
		return func() (tasks.SignallingStore, tasks.Bus) {
			c := newClient(t)
			return newStoreOn(t, c, prefix), newBusOn(t, c, prefix)
		}
	})
}

// pairedInstances returns a factory of instances on a fresh prefix, each
// a Store and a Bus on one client of its own, as a server holds them.
func pairedInstances(t *testing.T) func() (tasks.Store, tasks.Bus) {
	needRedis(t)
	prefix := newPrefix(t)
	return func() (tasks.Store, tasks.Bus) {
		c := newClient(t)
		return newStoreOn(t, c, prefix), newBusOn(t, c, prefix)
	}
}

// A Bus on another client, or with another prefix, is not paired: the
// Store cannot tell that the other client reaches the same Redis.
func TestStoreSignalsOnlyThroughItsOwnClientAndPrefix(t *testing.T) {
	needRedis(t)
	prefix := newPrefix(t)
	c := newClient(t)
	s := newStoreOn(t, c, prefix)
	if relay := s.SignalsTo(newBus(t, prefix)); relay != nil {
		t.Errorf("SignalsTo(a Bus on another client) = %p; want nil", relay)
	}
	if relay := s.SignalsTo(newBusOn(t, c, newPrefix(t))); relay != nil {
		t.Errorf("SignalsTo(a Bus with another prefix) = %p; want nil", relay)
	}
}

// A Runtime whose Store could carry its writes' signals, but not to the
// Bus it was given, says so when it starts, with what to change; a paired
// one says nothing of it.
func TestRuntimeSaysWhenItsStoreCannotSignalItsBus(t *testing.T) {
	needRedis(t)
	prefix := newPrefix(t)
	c := newClient(t)
	for _, tc := range []struct {
		name   string
		bus    tasks.Bus
		unpair bool
	}{
		{"a Bus on another client", newBus(t, prefix), true},
		{"the Store's own Bus", newBusOn(t, c, prefix), false},
	} {
		var log bytes.Buffer
		rt, err := tasks.New(newStoreOn(t, c, prefix), tc.bus, tasks.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
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
