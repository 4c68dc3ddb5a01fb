package jsonrpc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

// blocker is a handler for "block" requests that signals when it starts and
// reports the context error it ends with; other methods answer at once. A
// notification signals on synced: since notifications are handled on the
// read loop in order, everything sent before it has been dispatched.
type blocker struct {
	started chan jsonrpc.ID
	ended   chan error
	release chan struct{}
	synced  chan struct{}
}

func newBlocker() *blocker {
	return &blocker{
		started: make(chan jsonrpc.ID, 16),
		ended:   make(chan error, 16),
		release: make(chan struct{}),
		synced:  make(chan struct{}, 16),
	}
}

// sync waits until the connection has dispatched everything p sent so far.
func (b *blocker) sync(t *testing.T, p *peer) {
	t.Helper()
	p.send(&jsonrpc.Request{Method: "sync"})
	receive(t, b.synced, "the read loop to catch up")
}

func (b *blocker) Handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.IsNotification() {
		b.synced <- struct{}{}
		return nil, nil
	}
	if req.Method != "block" {
		return "fast", nil
	}
	b.started <- req.ID
	select {
	case <-ctx.Done():
		b.ended <- ctx.Err()
		return nil, ctx.Err()
	case <-b.release:
		b.ended <- nil
		return "released", nil
	}
}

func TestCancelInboundCancelsTheHandlerAndSuppressesItsResponse(t *testing.T) {
	b := newBlocker()
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b})
	p.send(request(1, "block", ""))
	receive(t, b.started, "the handler to start")
	if !c.CancelInbound(jsonrpc.Int64ID(1)) {
		t.Fatal("CancelInbound(1) = false for a running request")
	}
	if err := receive(t, b.ended, "the handler to end"); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler ended with %v; want context.Canceled", err)
	}
	p.send(request(2, "fast", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "2" {
		t.Fatalf("got %s; the cancelled request 1 must get no response", describe(resp))
	}
	if c.CancelInbound(jsonrpc.Int64ID(1)) {
		t.Error("a second CancelInbound(1) = true; want false")
	}
}

func TestCancelInboundIgnoresUnknownAndFinishedRequests(t *testing.T) {
	b := newBlocker()
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b})
	if c.CancelInbound(jsonrpc.Int64ID(99)) {
		t.Error("CancelInbound of an unknown id = true")
	}
	p.send(request(3, "fast", ""))
	p.recvResponse()
	if c.CancelInbound(jsonrpc.Int64ID(3)) {
		t.Error("CancelInbound of an answered request = true")
	}
	if c.CancelInbound(jsonrpc.StringID("3")) {
		t.Error(`CancelInbound("3") = true; only the integer 3 was ever in flight`)
	}
	p.send(request(4, "fast", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "4" || string(resp.Result) != `"fast"` {
		t.Errorf("connection disturbed after ignored cancels: %s", describe(resp))
	}
}

func TestCancelInboundRemovesAQueuedRequest(t *testing.T) {
	b := newBlocker()
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b, MaxInFlight: 1})
	p.send(request(1, "block", ""))
	receive(t, b.started, "request 1 to start")
	p.send(request(2, "block", "")) // waits for the only slot
	b.sync(t, p)
	if !c.CancelInbound(jsonrpc.Int64ID(2)) {
		t.Fatal("CancelInbound of a queued request = false")
	}
	close(b.release)
	if resp := p.recvResponse(); resp.ID.Raw() != "1" {
		t.Fatalf("got %s; want the response to 1", describe(resp))
	}
	p.send(request(3, "fast", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "3" {
		t.Fatalf("got %s; the cancelled queued request 2 must not run or answer", describe(resp))
	}
	select {
	case id := <-b.started:
		t.Fatalf("request %s started after being cancelled in the queue", id)
	default:
	}
}

// A cancellation that crosses the response on the wire: the caller gives
// up, and the response that arrives afterwards is dropped harmlessly.
func TestLateResponseAfterAbandonmentIsDropped(t *testing.T) {
	type abandoned struct {
		id     jsonrpc.ID
		method string
	}
	gaveUp := make(chan abandoned, 1)
	c, p := pipePeer(t, jsonrpc.ConnOptions{OnCallAbandoned: func(id jsonrpc.ID, method string, _ error) {
		gaveUp <- abandoned{id, method}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "tools/call", nil, nil) }()
	req := p.recv().(*jsonrpc.Request)
	cancel()
	if err := receive(t, done, "the abandoned call"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Call = %v; want context.Canceled", err)
	}
	if a := receive(t, gaveUp, "OnCallAbandoned"); a.id != req.ID || a.method != "tools/call" {
		t.Errorf("OnCallAbandoned(%s, %s); want (%s, tools/call)", a.id, a.method, req.ID)
	}
	p.send(&jsonrpc.Response{ID: req.ID, Result: []byte(`"late"`)})

	var got string
	go func() { done <- c.Call(timeoutCtx(t), "next", nil, &got) }()
	next := p.recv().(*jsonrpc.Request)
	if next.ID == req.ID {
		t.Fatalf("the connection reused id %s", req.ID)
	}
	p.send(&jsonrpc.Response{ID: next.ID, Result: []byte(`"fresh"`)})
	if err := receive(t, done, "the next call"); err != nil || got != "fresh" {
		t.Fatalf("next Call = %q, %v; want fresh", got, err)
	}
}

// The spec: "The request ID MUST NOT have been previously used by the
// requestor within the same session."
func TestRequestIDsMustNotBeReused(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{})
	seen := make(chan map[string]bool)
	go func() {
		ids := map[string]bool{}
		for range 50 {
			req := p.recv().(*jsonrpc.Request)
			ids[req.ID.Raw()] = true
			p.send(&jsonrpc.Response{ID: req.ID, Result: []byte(`{}`)})
		}
		seen <- ids
	}()
	for range 50 {
		if err := c.Call(timeoutCtx(t), "ping", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if ids := receive(t, seen, "the peer"); len(ids) != 50 {
		t.Fatalf("%d distinct ids over 50 calls", len(ids))
	}
}
