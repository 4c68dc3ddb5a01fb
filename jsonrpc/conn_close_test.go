package jsonrpc_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

func TestCloseFailsCallsAndCancelsHandlers(t *testing.T) {
	b := newBlocker()
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b})
	p.send(request(1, "block", ""))
	receive(t, b.started, "the handler to start")
	pending := make(chan error, 1)
	go func() { pending <- c.Call(timeoutCtx(t), "never-answered", nil, nil) }()
	p.recv() // the call is on the wire, and will get no answer

	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := receive(t, pending, "the pending call"); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("pending Call = %v; want ErrClosed", err)
	}
	if err := receive(t, b.ended, "the handler"); !errors.Is(err, context.Canceled) {
		t.Errorf("handler ended with %v; want context.Canceled", err)
	}
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Err() = %v; want ErrClosed", err)
	}
	if err := c.Call(timeoutCtx(t), "after", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Call after Close = %v; want ErrClosed", err)
	}
	if err := c.Notify(timeoutCtx(t), "after", nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Notify after Close = %v; want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	// The handler's response is not sent: the peer sees the stream end.
	if msg, err := p.s.Read(timeoutCtx(t)); !errors.Is(err, io.EOF) {
		t.Errorf("peer read %v, %v after Close; want io.EOF", msg, err)
	}
}

func TestErrIsNilWhileOpen(t *testing.T) {
	c, _ := pipePeer(t, jsonrpc.ConnOptions{})
	if err := c.Err(); err != nil {
		t.Errorf("Err() = %v on an open connection", err)
	}
}

func TestPeerClosingEndsTheConnection(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{})
	pending := make(chan error, 1)
	go func() { pending <- c.Call(timeoutCtx(t), "m", nil, nil) }()
	p.recv()
	p.s.Close()
	err := receive(t, pending, "the pending call")
	if !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, io.EOF) {
		t.Errorf("pending Call = %v; want ErrClosed and io.EOF", err)
	}
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, io.EOF) {
		t.Errorf("Err() = %v; want ErrClosed and io.EOF", err)
	}
}

// After the peer's end of input, requests already accepted are still
// answered (the peer may still be reading), then the connection ends.
func TestEndOfInputLetsAcceptedRequestsFinish(t *testing.T) {
	b := newBlocker()
	c, p := stdioPeer(t, jsonrpc.ConnOptions{Handler: b})
	p.sendLine(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	receive(t, b.started, "the handler to start")
	p.w.Close()
	// No response can arrive any more, so a call fails (at once, or as soon
	// as the read loop sees the end if it went out just before).
	if err := c.Call(timeoutCtx(t), "m", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, io.EOF) {
		t.Fatalf("Call after the peer's EOF = %v; want ErrClosed and io.EOF", err)
	}
	select {
	case <-c.Done():
		t.Fatal("the connection ended before its running handler answered")
	default:
	}
	close(b.release)
	for {
		msg := p.recv()
		if _, isCall := msg.(*jsonrpc.Request); isCall {
			continue // a call that went out before the read loop saw the end
		}
		if got := describe(msg); got != `response id=1 result="released"` {
			t.Fatalf("got %s; want the running request answered after EOF", got)
		}
		break
	}
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, io.EOF) {
		t.Errorf("Err() = %v; want io.EOF", err)
	}
}

func TestReadFailureEndsTheConnectionAtOnce(t *testing.T) {
	b := newBlocker()
	toConnR, toConnW := io.Pipe()
	_, fromConnW := io.Pipe()
	c := newConn(t, transport.NewStdio(toConnR, fromConnW), jsonrpc.ConnOptions{Handler: b})
	io.WriteString(toConnW, `{"jsonrpc":"2.0","id":1,"method":"block"}`+"\n")
	receive(t, b.started, "the handler to start")
	toConnW.CloseWithError(errors.New("wire cut"))
	if err := receive(t, b.ended, "the handler"); !errors.Is(err, context.Canceled) {
		t.Errorf("handler ended with %v; want context.Canceled", err)
	}
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, jsonrpc.ErrClosed) || !strings.Contains(err.Error(), "wire cut") {
		t.Errorf("Err() = %v; want ErrClosed with the read error", err)
	}
}

// Replies the connection produced itself (here the answer to a line that is
// not JSON, and a batch reply) still go out when the input ends right after.
func TestEndOfInputFlushesPendingReplies(t *testing.T) {
	c, p := stdioPeer(t, jsonrpc.ConnOptions{AllowBatch: func() bool { return true }})
	p.sendLine(`garbage`)
	p.sendLine(`[{"jsonrpc":"2.0","id":1,"method":"x"}]`)
	p.w.Close()
	if got := describe(p.recvResponse()); !strings.HasPrefix(got, `response id=null error=-32700`) {
		t.Errorf("got %s; want the parse error", got)
	}
	if got := describe(p.recv()); got != `batch[response id=1 error=-32601 "method \"x\" not found" data=]` {
		t.Errorf("got %s; want the batch reply", got)
	}
	waitDone(t, c)
}
