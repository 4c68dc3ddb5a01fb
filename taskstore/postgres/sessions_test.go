package postgres_test

import (
	"testing"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/sessions/sessiontest"
)

func TestSessionStoreContract(t *testing.T) {
	sessiontest.TestStore(t, func(t *testing.T) sessions.Store { return open(t, freshSchema(t)).Sessions() })
}

// Two Stores on one schema stand for two instances sharing the database.
func TestSessionStorePairContract(t *testing.T) {
	sessiontest.TestStorePair(t, func(t *testing.T) (sessions.Store, sessions.Store) {
		schema := freshSchema(t)
		return open(t, schema).Sessions(), open(t, schema).Sessions()
	})
}
