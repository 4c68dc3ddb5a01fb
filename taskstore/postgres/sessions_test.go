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

func TestMessageLogContract(t *testing.T) {
	sessiontest.TestMessageLog(t, func(t *testing.T) sessions.MessageLog { return open(t, freshSchema(t)).Messages() })
}

// Two Stores on one schema stand for two instances routing messages.
func TestMessageLogPairContract(t *testing.T) {
	sessiontest.TestMessageLogPair(t, func(t *testing.T) (sessions.MessageLog, sessions.MessageLog) {
		schema := freshSchema(t)
		return open(t, schema).Messages(), open(t, schema).Messages()
	})
}
