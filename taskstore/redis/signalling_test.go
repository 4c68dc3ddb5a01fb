package redis_test

import (
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
