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
