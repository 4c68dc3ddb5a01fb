package client

import (
	"context"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// cancelSendTimeout bounds sending one notifications/cancelled.
const cancelSendTimeout = 5 * time.Second

// abandoned runs when the context of a call ends before its response: it
// tells the server with notifications/cancelled, with the context's cause
// as the reason (see cancelReason), except for initialize (which must never
// be cancelled), the era probe (a legacy server must see nothing before
// initialize), and a subscription the server ended itself.
//
// For an ordinary call the notification is sent in the background so the
// caller returns at once (Close waits for it). A subscription's listen
// request runs on its own goroutine, so there it is sent before the
// subscription counts as closed.
func (s *Session) abandoned(id jsonrpc.ID, method string, cause error) {
	switch {
	case method == mcp.MethodInitialize:
		return
	case method == mcp.MethodServerDiscover && s.probing.Load():
		return
	case method == mcp.MethodSubscriptionsListen:
		if s.subs.abandonedListen(id) {
			s.sendCancel(id, method, cause)
		}
		return
	}
	s.inBackground(func() { s.sendCancel(id, method, cause) })
}

// inBackground runs send on a goroutine of its own that Close waits for,
// unless the session is closed already: a cancel the caller need not wait
// for.
func (s *Session) inBackground(send func()) {
	s.closeMu.Lock()
	if s.closed {
		s.closeMu.Unlock()
		return
	}
	s.notifying.Add(1)
	s.closeMu.Unlock()
	go func() {
		defer s.notifying.Done()
		send()
	}()
}

// sendCancel sends notifications/cancelled for the request id.
func (s *Session) sendCancel(id jsonrpc.ID, method string, cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), cancelSendTimeout)
	defer cancel()
	err := s.notify(ctx, mcp.NotificationCancelled, &mcp.CancelledNotificationParams{RequestID: id, Reason: cancelReason(cause)})
	if err != nil && s.conn.Err() == nil {
		s.client.logger.Warn("client: could not send notifications/cancelled", "id", id, "method", method, "error", err)
	}
}

// cancelReason is the reason notifications/cancelled gives: why the caller
// stopped waiting, from the context's cause (a cancellation, a deadline, or
// the reason given to context.WithCancelCause or context.WithDeadlineCause).
func cancelReason(cause error) string {
	switch cause {
	case nil, context.Canceled:
		return "the client stopped waiting: the call was cancelled"
	case context.DeadlineExceeded:
		return "the client stopped waiting: the call's deadline passed"
	}
	return "the client stopped waiting: " + cause.Error()
}

// abandonedTask runs when the context of CallTool with WithTask ends while
// it waits for the task it started. The caller holds no handle on that
// task and cannot cancel or resume it, so the abandoned call is cancelled
// as a task is: with tasks/cancel (notifications/cancelled does not apply
// to tasks). It is sent in the background, as for an ordinary call, so the
// caller returns at once (Close waits for it).
func (s *Session) abandonedTask(h *TaskHandle) {
	s.inBackground(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cancelSendTimeout)
		defer cancel()
		if err := h.Cancel(ctx); err != nil && s.conn.Err() == nil {
			s.client.logger.Warn("client: could not cancel the task of a call whose context ended", "task", h.ID(), "error", err)
		}
	})
}
