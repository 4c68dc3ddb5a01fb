package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/tasks/storetest"
	"github.com/weftmcp/weft/taskstore/postgres"
)

// A Store and a Bus of one schema on one database are paired: the Store's
// writes notify their signals in their own transactions.
func TestSignallingStoreContract(t *testing.T) {
	storetest.TestSignallingStore(t, func(t *testing.T) storetest.SignallingInstance {
		schema := freshSchema(t)
		return func() (tasks.SignallingStore, tasks.Bus) { return open(t, schema), openBus(t, schema) }
	})
}

// A Bus of another schema, or reaching the database under another host
// name, is not paired: the Store cannot tell that it listens where the
// Store's writes would notify.
func TestStoreSignalsOnlyOnItsSchemasChannelOfItsDatabase(t *testing.T) {
	schema := freshSchema(t)
	s := open(t, schema)
	if relay := s.SignalsTo(openBus(t, freshSchema(t))); relay != nil {
		t.Errorf("SignalsTo(a Bus of another schema) = %p; want nil", relay)
	}
	// The same database under its other loopback name.
	other := strings.Replace(connString(), "@127.0.0.1", "@localhost", 1)
	if other == connString() {
		other = strings.Replace(connString(), "@localhost", "@127.0.0.1", 1)
	}
	if other == connString() {
		t.Skipf("the test database %s is not named by 127.0.0.1 or localhost, so no other name for it is known", connString())
	}
	b, err := postgres.OpenBus(context.Background(), other, nil, postgres.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if relay := s.SignalsTo(b); relay != nil {
		t.Errorf("SignalsTo(a Bus on %s) = %p; want nil: the Store was opened on %s", other, relay, connString())
	}
}
