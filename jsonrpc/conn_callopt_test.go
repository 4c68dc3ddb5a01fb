package jsonrpc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

// OnID reports the request's ID before the request is on the wire, so a
// message the peer sends about the call before its response can be matched.
func TestOnIDReportsTheIDBeforeTheRequestIsWritten(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{})
	reported := make(chan jsonrpc.ID, 1)
	done := make(chan error, 1)
	go func() {
		done <- c.Call(timeoutCtx(t), "subscriptions/listen", nil, nil, jsonrpc.OnID(func(id jsonrpc.ID) { reported <- id }))
	}()
	req := p.recv().(*jsonrpc.Request)
	select {
	case id := <-reported:
		if id != req.ID {
			t.Fatalf("OnID reported %s; the request on the wire has id %s", id, req.ID)
		}
	default:
		t.Fatal("the request reached the peer before OnID reported its ID")
	}
	p.send(&jsonrpc.Response{ID: req.ID, Result: []byte(`{}`)})
	if err := receive(t, done, "the call"); err != nil {
		t.Fatal(err)
	}
}

// The reason a caller gives when it gives up (context.WithCancelCause)
// reaches OnCallAbandoned and the call's error; without one, the hook gets
// the context's own error.
func TestAbandonedCallCarriesTheContextCause(t *testing.T) {
	stop := errors.New("the user pressed stop")
	causes := make(chan error, 2)
	c, p := pipePeer(t, jsonrpc.ConnOptions{OnCallAbandoned: func(_ jsonrpc.ID, _ string, cause error) { causes <- cause }})

	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "tools/call", nil, nil) }()
	p.recv()
	cancel(stop)
	err := receive(t, done, "the abandoned call")
	if !errors.Is(err, context.Canceled) || !errors.Is(err, stop) {
		t.Errorf("Call = %v; want it to wrap context.Canceled and the cause", err)
	}
	if got := receive(t, causes, "OnCallAbandoned"); got != stop {
		t.Errorf("OnCallAbandoned cause = %v; want %v", got, stop)
	}

	plain, cancelPlain := context.WithCancel(context.Background())
	go func() { done <- c.Call(plain, "tools/call", nil, nil) }()
	p.recv()
	cancelPlain()
	if err := receive(t, done, "the second call"); !errors.Is(err, context.Canceled) {
		t.Errorf("Call = %v; want context.Canceled", err)
	}
	if got := receive(t, causes, "OnCallAbandoned"); got != context.Canceled {
		t.Errorf("OnCallAbandoned cause = %v; want context.Canceled", got)
	}
}

// acceptingStream is a PushStream whose Write of a request stands for a
// Streamable HTTP POST the server has begun serving: the request is with
// the peer, but the write returns only when its context ends.
type acceptingStream struct {
	nopPush
	writing chan jsonrpc.ID // a request is being written
}

func (s *acceptingStream) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.IsNotification() {
		return nil
	}
	s.writing <- req.ID
	<-ctx.Done()
	return ctx.Err()
}

// A call whose context ends while the stream writes its request is
// abandoned like one whose context ends while it waits for the response:
// the request may have reached the peer, which must be told. A call whose
// context ended before it was written is not: nothing was sent.
func TestCallAbandonedWhileItsRequestIsWrittenIsReported(t *testing.T) {
	s := &acceptingStream{writing: make(chan jsonrpc.ID, 1)}
	abandoned := make(chan jsonrpc.ID, 2)
	c := newConn(t, s, jsonrpc.ConnOptions{OnCallAbandoned: func(id jsonrpc.ID, _ string, _ error) { abandoned <- id }})

	ctx, cancel := context.WithCancel(timeoutCtx(t))
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "tools/call", nil, nil) }()
	id := receive(t, s.writing, "the request being written")
	cancel()
	if err := receive(t, done, "the call"); !errors.Is(err, context.Canceled) {
		t.Errorf("Call = %v; want it to wrap context.Canceled", err)
	}
	if got := receive(t, abandoned, "OnCallAbandoned"); got != id {
		t.Errorf("OnCallAbandoned got id %s; want the request's, %s", got, id)
	}

	before, cancelBefore := context.WithCancel(timeoutCtx(t))
	cancelBefore()
	if err := c.Call(before, "tools/call", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Call with an ended context = %v; want it to wrap context.Canceled", err)
	}
	select {
	case id := <-abandoned:
		t.Errorf("OnCallAbandoned got id %s for a call whose request was never written", id)
	default: // Call reports an abandonment before it returns
	}
}
