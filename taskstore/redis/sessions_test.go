package redis_test

import (
	"testing"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/sessions/sessiontest"
)

func TestSessionStoreContract(t *testing.T) {
	needRedis(t)
	sessiontest.TestStore(t, func(t *testing.T) sessions.Store { return newStore(t, newPrefix(t)).Sessions() })
}

// Two Stores with their own connections on one prefix stand for two instances.
func TestSessionStorePairContract(t *testing.T) {
	needRedis(t)
	sessiontest.TestStorePair(t, func(t *testing.T) (sessions.Store, sessions.Store) {
		prefix := newPrefix(t)
		return newStore(t, prefix).Sessions(), newStore(t, prefix).Sessions()
	})
}

func TestMessageLogContract(t *testing.T) {
	needRedis(t)
	sessiontest.TestMessageLog(t, func(t *testing.T) sessions.MessageLog { return newStore(t, newPrefix(t)).Messages() })
}

// Two Stores with their own connections on one prefix stand for two instances.
func TestMessageLogPairContract(t *testing.T) {
	needRedis(t)
	sessiontest.TestMessageLogPair(t, func(t *testing.T) (sessions.MessageLog, sessions.MessageLog) {
		prefix := newPrefix(t)
		return newStore(t, prefix).Messages(), newStore(t, prefix).Messages()
	})
}
