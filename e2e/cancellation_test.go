package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// startBlocking calls the fixture's block tool with tag in the background,
// waits until its handler runs on the server, and returns the request's ID,
// the function that cancels the call, and the channel of the call's error.
func startBlocking(t *testing.T, s *client.Session, tp *tap, tag string) (jsonrpc.ID, context.CancelFunc, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctxFor(t))
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: []byte(fmt.Sprintf(`{"tag":%q}`, tag))})
		errc <- err
	}()
	if got := outText(t, callTool(t, s, "was_started", fmt.Sprintf(`{"tag":%q}`, tag))); got != "true" {
		t.Fatalf("the block handler did not start: %s", got)
	}
	for _, r := range tp.sent(mcp.MethodToolsCall) {
		var p mcp.CallToolParams
		if json.Unmarshal(r.Params, &p) == nil && p.Name == "block" && string(p.Arguments) == fmt.Sprintf(`{"tag":%q}`, tag) {
			return r.ID, cancel, errc
		}
	}
	t.Fatal("the block request is not on the wire")
	return jsonrpc.ID{}, nil, nil
}

// cancelledOnWire returns the notifications/cancelled the client sent.
func cancelledOnWire(t *testing.T, tp *tap) []mcp.CancelledNotificationParams {
	t.Helper()
	var out []mcp.CancelledNotificationParams
	for _, r := range tp.sent(mcp.NotificationCancelled) {
		var p mcp.CancelledNotificationParams
		if err := json.Unmarshal(r.Params, &p); err != nil {
			t.Fatalf("notifications/cancelled %s: %v", r.Params, err)
		}
		out = append(out, p)
	}
	return out
}

// On stdio the client MUST send notifications/cancelled referencing the
// request's ID to cancel it: the caller gets the context's error at once,
// the notification names the request with a reason, and the server's
// handler sees its context cancelled.
func TestClientMustSendCancelledNotificationReferencingTheRequestID(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		id, cancel, errc := startBlocking(t, s, tp, "c1")
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled call returned %v, want context.Canceled", err)
		}
		tp.waitFor(t, "notifications/cancelled", func(e tapEntry) bool {
			r, ok := e.msg.(*jsonrpc.Request)
			return ok && e.sent && r.Method == mcp.NotificationCancelled
		})
		got := cancelledOnWire(t, tp)
		if len(got) != 1 || got[0].RequestID != id || got[0].Reason == "" {
			t.Fatalf("notifications/cancelled sent: %+v, want one for %s with a reason", got, id)
		}
		if got := outText(t, callTool(t, s, "was_cancelled", `{"tag":"c1"}`)); got != "true" {
			t.Errorf("the server's handler was not cancelled")
		}
	})
}

// A server receiving notifications/cancelled MUST NOT send any further
// messages for the cancelled request (stdio, 2026-07-28): no response follows.
func TestServerMustNotSendFurtherMessagesForACancelledRequest(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		id, cancel, errc := startBlocking(t, s, tp, "c2")
		cancel()
		<-errc
		if got := outText(t, callTool(t, s, "was_cancelled", `{"tag":"c2"}`)); got != "true" {
			t.Fatalf("the server's handler was not cancelled")
		}
		callTool(t, s, "add", `{"a":1,"b":1}`) // one more round trip after the handler ended
		if resp, _ := tp.response(id); resp != nil {
			t.Errorf("the server answered the cancelled request: %+v", resp)
		}
		// Servers send notifications/cancelled for nothing but subscriptions.
		if n := len(tp.received(mcp.NotificationCancelled)); n != 0 {
			t.Errorf("the server sent %d notifications/cancelled", n)
		}
	})
}

// Cancellation notifications MUST only reference requests that were issued
// by the client and are believed to be in progress: a finished call's
// context ending sends nothing.
func TestCancellationMustOnlyReferenceRequestsInProgress(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		ctx, cancel := context.WithCancel(ctxFor(t))
		if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: []byte(`{"a":1,"b":2}`)}); err != nil {
			t.Fatal(err)
		}
		cancel() // after the response: nothing is in progress
		id, cancelBlock, errc := startBlocking(t, s, tp, "c3")
		cancelBlock()
		<-errc
		tp.waitFor(t, "notifications/cancelled", func(e tapEntry) bool {
			r, ok := e.msg.(*jsonrpc.Request)
			return ok && e.sent && r.Method == mcp.NotificationCancelled
		})
		callTool(t, s, "was_cancelled", `{"tag":"c3"}`)
		got := cancelledOnWire(t, tp)
		if len(got) != 1 || got[0].RequestID != id {
			t.Fatalf("notifications/cancelled sent: %+v, want only the one for the request in progress, %s", got, id)
		}
	})
}

// The initialize request MUST NOT be cancelled by clients: a Connect whose
// context ends while initialize is unanswered sends no notifications/cancelled.
func TestInitializeMustNotBeCancelledByClients(t *testing.T) {
	forEach(t, legacyVersions, func(t *testing.T, e env) {
		tp := newTap(dial(t, e.transport))
		ctx, cancel := context.WithCancel(ctxFor(t))
		// Hold initialize back, so it stays unanswered, and give up on it.
		var held int
		tp.setAlter(func(msg jsonrpc.Message) jsonrpc.Message {
			if r, ok := msg.(*jsonrpc.Request); ok && r.Method == mcp.MethodInitialize {
				held++
				cancel()
				return nil
			}
			return msg
		})
		_, err := client.New(clientInfo, &client.Options{ProtocolVersion: e.version}).Connect(ctx, tp)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Connect returned %v, want context.Canceled", err)
		}
		if held != 1 {
			t.Fatalf("the client sent initialize %d times, want once", held)
		}
		// Connect has closed the session, so nothing more can be sent.
		if n := len(tp.sent(mcp.NotificationCancelled)); n != 0 {
			t.Errorf("the client sent %d notifications/cancelled for initialize", n)
		}
	})
}

// Both parties MUST handle cancellation races gracefully: calls cancelled
// the moment they are sent, racing their completion, leave the session
// answering every later call correctly.
func TestBothPartiesMustHandleCancellationRacesGracefully(t *testing.T) {
	forEach(t, allVersions, func(t *testing.T, e env) {
		s, tp := e.connect(t, nil)
		var cancelNow context.CancelFunc
		tp.setAlter(func(msg jsonrpc.Message) jsonrpc.Message {
			if r, ok := msg.(*jsonrpc.Request); ok && r.Method == mcp.MethodToolsCall && cancelNow != nil {
				cancelNow() // cancel as the request leaves: the response races the notification
			}
			return msg
		})
		var completed, cancelled int
		for i := range 40 {
			ctx, cancel := context.WithCancel(ctxFor(t))
			cancelNow = cancel
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: []byte(fmt.Sprintf(`{"a":%d,"b":1}`, i))})
			switch {
			case err == nil && text(t, res) == fmt.Sprintf(`{"sum":%d}`, i+1):
				completed++
			case errors.Is(err, context.Canceled):
				cancelled++
			default:
				t.Fatalf("call %d: %+v, %v", i, res, err)
			}
		}
		cancelNow = nil
		for i := range 10 {
			if got := text(t, callTool(t, s, "add", fmt.Sprintf(`{"a":%d,"b":%d}`, i, i))); got != fmt.Sprintf(`{"sum":%d}`, 2*i) {
				t.Fatalf("after the races, add(%d,%d) = %s", i, i, got)
			}
		}
		if cancelled == 0 {
			t.Errorf("no call was cancelled (%d completed); the race was not exercised", completed)
		}
	})
}

// Cancellation reaches through a legacy server to the requests it sent the
// client: cancelling a tool call that waits for the client's sampling
// handler cancels the server's handler, which cancels its
// sampling/createMessage, whose handler on the client sees its context end.
func TestCancellationReachesTheServersRequestsToTheClient(t *testing.T) {
	forEach(t, legacyVersions, func(t *testing.T, e env) {
		entered, cancelled := make(chan struct{}), make(chan struct{})
		s, tp := e.connect(t, &client.Options{
			CreateMessage: func(ctx context.Context, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
				close(entered)
				<-ctx.Done()
				close(cancelled)
				return nil, ctx.Err()
			},
		})
		ctx, cancel := context.WithCancel(ctxFor(t))
		errc := make(chan error, 1)
		go func() {
			_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: []byte(`{"kinds":["sample"]}`)})
			errc <- err
		}()
		waitClosed(t, entered, "the sampling handler to start")
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled call returned %v", err)
		}
		waitClosed(t, cancelled, "the sampling handler's context to end")
		sampling := tp.received(mcp.MethodSamplingCreateMessage)
		var cp mcp.CancelledNotificationParams
		for _, n := range tp.received(mcp.NotificationCancelled) {
			json.Unmarshal(n.Params, &cp)
		}
		if len(sampling) != 1 || cp.RequestID != sampling[0].ID {
			t.Errorf("the server's notifications/cancelled names %s, want its sampling request %v", cp.RequestID, sampling)
		}
	})
}

// waitClosed waits for ch to be closed.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}
