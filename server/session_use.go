package server

import (
	"context"

	"github.com/weftmcp/weft/jsonrpc"
)

// sessionUse is what a session holds only once it uses a feature beyond
// the handshake: change notifications, tasks, subscriptions, listen
// streams, client-hosted tasks. Six fields of the Session made this one
// pointer, and with its small fields packed together, an idle Session is
// 448 B where it was 512 B.
type sessionUse struct {
	out     *outbox         // change notifications to send; made on the first (see postChange)
	taskOut *taskStatusOut  // task status notifications to send; made on the first task (see taskStatusFollower)
	subs    map[string]bool // resources/subscribe
	peer    *recordedPeer   // caps and client as tasks record them, encoded on the first task
	// listens are the open subscriptions/listen requests: each one's
	// connection context, which ends once it has been answered.
	listens map[jsonrpc.ID]context.Context
	// clientTasks are the waiters of client-hosted tasks, by task ID (see
	// ClientTask.Wait).
	clientTasks map[string][]chan struct{}
}

// useLocked returns what the session holds once used, making it on first
// use; ss.mu is held.
func (ss *Session) useLocked() *sessionUse {
	if ss.used == nil {
		ss.used = new(sessionUse)
	}
	return ss.used
}
