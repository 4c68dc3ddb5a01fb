// Package storetest is the contract test kit for task drivers: a Store or a
// Bus that passes it fits the task Runtime, as testing/fstest.TestFS does
// for file systems.
//
// A driver's own test calls TestStore and TestBus with a function that opens
// a fresh, empty handle; a driver that several processes can share also
// calls TestStorePair and TestBusPair with two handles on one backing
// service, to prove cross-instance visibility and delivery:
//
//	func TestContract(t *testing.T) {
//		storetest.TestStore(t, func(t *testing.T) tasks.Store { return open(t) })
//		storetest.TestBus(t, func(t *testing.T) tasks.Bus { return openBus(t) })
//	}
//
// TestCluster then runs Runtimes on the driver as server instances do: a
// cancel or an answer on one reaches the handler on another, and a lost
// instance's task is failed or run again within its lease.
//
// A store whose writes send their own signals (tasks.SignallingStore) also
// calls TestSignallingStore, and runs TestCluster with instances whose Store
// and Bus pair up, as a server's do.
//
// A store with no expiring keys of its own (an SQL database) also calls
// TestExpiryBackstop, for the bound it keeps on expired tasks when no
// Runtime sweeps.
//
// The kit writes times with millisecond precision and raw JSON in compact
// form, and expects both back exactly.
package storetest
