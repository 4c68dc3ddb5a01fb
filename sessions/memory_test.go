package sessions_test

import (
	"testing"

	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/sessions/sessiontest"
)

func TestMemoryStoreContract(t *testing.T) {
	sessiontest.TestStore(t, func(t *testing.T) sessions.Store { return sessions.NewMemoryStore() })
}

func TestMemoryMessageLogContract(t *testing.T) {
	sessiontest.TestMessageLog(t, func(t *testing.T) sessions.MessageLog { return sessions.NewMemoryMessageLog() })
}
