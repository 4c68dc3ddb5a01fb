// Package sessiontest is the contract test kit for session drivers: a
// sessions.Store that passes it can hold the legacy sessions of a cluster.
//
// A driver's test calls TestStore with a function that opens a fresh, empty
// handle, and a driver several processes can share also calls
// TestStorePair with two handles on one backing store:
//
//	func TestSessionContract(t *testing.T) {
//		sessiontest.TestStore(t, func(t *testing.T) sessions.Store { return open(t) })
//	}
//
// A driver of sessions.MessageLog does the same with TestMessageLog and
// TestMessageLogPair.
package sessiontest
