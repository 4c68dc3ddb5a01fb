package jsonrpc_test

import (
	"context"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

func TestPanickingHandlerFailsOnlyItsRequest(t *testing.T) {
	logger, logs := newLogger()
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "boom" {
			panic("kaboom")
		}
		return "ok", nil
	})
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: handler, Logger: logger})
	p.send(request(1, "boom", ""))
	if got, want := describe(p.recvResponse()), `response id=1 error=-32603 "internal error: handler for boom panicked" data=`; got != want {
		t.Errorf("got %s; want %s", got, want)
	}
	p.send(request(2, "fine", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "2" || string(resp.Result) != `"ok"` {
		t.Errorf("after a panic: %s; want request 2 answered normally", describe(resp))
	}
	out := logs.String()
	if !strings.Contains(out, "kaboom") || !strings.Contains(out, "runtime/debug.Stack") {
		t.Errorf("the panic was not logged with its stack:\n%s", out)
	}
}

func TestPanickingNotificationHandlerKeepsTheConnection(t *testing.T) {
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			panic("in a notification")
		}
		return "ok", nil
	})
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: handler})
	p.send(&jsonrpc.Request{Method: "n"})
	p.send(request(1, "m", ""))
	if resp := p.recvResponse(); string(resp.Result) != `"ok"` {
		t.Errorf("got %s; want the connection to carry on", describe(resp))
	}
}

func TestFullQueueAnswersServerBusyAtOnce(t *testing.T) {
	b := newBlocker()
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b, MaxInFlight: 1, MaxQueued: 1})
	p.send(request(1, "block", ""))
	receive(t, b.started, "request 1 to start")
	p.send(request(2, "block", "")) // takes the one queue place
	b.sync(t, p)
	p.send(request(3, "block", "")) // no room
	resp := p.recvResponse()
	if resp.ID.Raw() != "3" || resp.Error == nil || resp.Error.Code != jsonrpc.CodeServerBusy ||
		!strings.HasPrefix(resp.Error.Message, "server busy: ") {
		t.Fatalf("got %s; want -32000 server busy for request 3", describe(resp))
	}
	close(b.release)
	got := map[string]string{}
	for range 2 {
		r := p.recvResponse()
		got[r.ID.Raw()] = string(r.Result)
	}
	if got["1"] != `"released"` || got["2"] != `"released"` {
		t.Errorf("after release: %v; want requests 1 and 2 answered", got)
	}
}

func TestQueuedRequestsRunInArrivalOrder(t *testing.T) {
	b := newBlocker()
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b, MaxInFlight: 1})
	p.send(request(1, "block", ""))
	receive(t, b.started, "request 1 to start")
	for id := int64(2); id <= 5; id++ {
		p.send(request(id, "block", ""))
	}
	b.sync(t, p)
	close(b.release)
	for want := int64(2); want <= 5; want++ {
		p.recvResponse() // the previous request's (the pipe is synchronous)
		if id := receive(t, b.started, "the next request"); id != jsonrpc.Int64ID(want) {
			t.Fatalf("request %s started where request %d should have", id, want)
		}
	}
	p.recvResponse()
}

func TestDuplicateInboundIDIsRefused(t *testing.T) {
	b := newBlocker()
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b})
	p.send(request(1, "block", ""))
	receive(t, b.started, "request 1 to start")
	p.send(request(1, "block", ""))
	resp := p.recvResponse()
	if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(resp.Error.Message, "already in use") {
		t.Fatalf("got %s; want -32600 id already in use", describe(resp))
	}
	close(b.release)
	if resp := p.recvResponse(); string(resp.Result) != `"released"` {
		t.Fatalf("got %s; want the first request 1 answered", describe(resp))
	}
}
