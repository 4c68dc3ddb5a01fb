package jsonrpc_test

import (
	"context"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// afterward is a handler whose "start" requests leave work to run once
// answered (AfterResponse), which waits for release; "fast" is answered at
// once, and a "start" whose params are ["hold"] also waits for its context
// to end before it returns.
type afterward struct {
	taken   chan bool     // AfterResponse's answer, per "start"
	started chan struct{} // the work after a response began
	ended   chan struct{} // it ended
	release chan struct{}
}

func newAfterward() *afterward {
	return &afterward{
		taken:   make(chan bool, 16),
		started: make(chan struct{}, 16),
		ended:   make(chan struct{}, 16),
		release: make(chan struct{}),
	}
}

func (a *afterward) Handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.Method != "start" {
		return "fast", nil
	}
	a.taken <- jsonrpc.AfterResponse(ctx, func() {
		a.started <- struct{}{}
		<-a.release
		a.ended <- struct{}{}
	})
	if string(req.Params) == `["hold"]` {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return "started", nil
}

// The read loop answers the request first, then runs what its handler
// left, without its handler slot and without holding up reading: a
// request sent meanwhile is answered while it runs.
func TestAfterResponseOnTheReadLoopRunsOnceAnsweredAndHoldsUpNothing(t *testing.T) {
	a := newAfterward()
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: a, MaxInFlight: 1})
	p.send(request(1, "start", ""))
	if resp := p.recvResponse(); string(resp.Result) != `"started"` {
		t.Fatalf("got %s; want request 1's result \"started\"", describe(resp))
	}
	if !receive(t, a.taken, "AfterResponse's answer") {
		t.Fatal("AfterResponse = false in a handler served by the read loop")
	}
	receive(t, a.started, "the work after the response to start")
	p.send(request(2, "fast", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "2" {
		t.Fatalf("got %s while the work after request 1 runs; want the response to 2", describe(resp))
	}
	close(a.release)
	receive(t, a.ended, "the work after the response to end")
	if got := jsonrpc.ReadLoopServed(c); got == 0 {
		t.Error("the read loop served no request; the test does not exercise it")
	}
}

// A worker (here, of a PushStream's Receive) answers the request, then
// runs what its handler left after giving up the handler slot: with one
// slot, the next request is answered meanwhile.
func TestAfterResponseOnAWorkerRunsOnceAnsweredAndFreesTheSlot(t *testing.T) {
	a := newAfterward()
	s := newMemPush()
	newConn(t, s, jsonrpc.ConnOptions{Handler: a, MaxInFlight: 1})
	s.r.Receive(request(1, "start", ""), nil)
	receive(t, a.started, "the work after the response to start")
	if msgs := s.awaitWrites(t, 1); describe(msgs[0]) != `response id=1 result="started"` {
		t.Fatalf("written %v; want the response to 1", msgs)
	}
	s.r.Receive(request(2, "fast", ""), nil)
	if msgs := s.awaitWrites(t, 2); describe(msgs[1]) != `response id=2 result="fast"` {
		t.Fatalf("written %v while the work after request 1 runs; want the response to 2", msgs)
	}
	close(a.release)
	receive(t, a.ended, "the work after the response to end")
}

// The connection ends without waiting for what runs after a response, on
// the read loop, whether it is closed or its input ends while the work
// runs, or it was closed while the handler ran.
func TestTheConnectionEndsWithoutWaitingForWorkAfterAResponse(t *testing.T) {
	for _, end := range []string{"Close", "end of input", "Close during the handler"} {
		t.Run(end, func(t *testing.T) {
			a := newAfterward()
			defer close(a.release)
			sc, sp := pipeEnds(t)
			c := newConn(t, sc, jsonrpc.ConnOptions{Handler: a})
			p := &peer{t: t, s: sp}
			switch end {
			case "Close during the handler":
				p.send(request(1, "start", `["hold"]`)) // returns once its context ends
				receive(t, a.taken, "the handler to leave its work")
				c.Close()
				receive(t, a.started, "the work after the handler to start")
			default:
				p.send(request(1, "start", ""))
				p.recvResponse()
				receive(t, a.started, "the work after the response to start")
				if end == "Close" {
					c.Close()
				} else {
					sp.Close()
				}
			}
			waitDone(t, c)
			select {
			case <-a.ended:
				t.Fatal("the work after the response ended before it was released")
			default:
			}
		})
	}
}

// What a handler left runs even when its answer is not sent: here the
// request was cancelled.
func TestAfterResponseRunsWhenTheAnswerIsNotSent(t *testing.T) {
	a := newAfterward()
	close(a.release)
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: a})
	p.send(request(1, "start", `["hold"]`))
	receive(t, a.taken, "the handler to register its work")
	if !c.CancelInbound(jsonrpc.Int64ID(1)) {
		t.Fatal("CancelInbound(1) = false for a running request")
	}
	receive(t, a.ended, "the work after the cancelled request")
	p.send(request(2, "fast", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "2" {
		t.Fatalf("got %s; want only the response to 2 (1 was cancelled)", describe(resp))
	}
}

// AfterResponse refuses a context that is not a handler's, a handler that
// has returned, and a request a PushStream's Serve serves on its own
// goroutine: in none of them would f run.
func TestAfterResponseRefusesWhatItCannotRun(t *testing.T) {
	f := func() { t.Error("a refused f ran") }
	if jsonrpc.AfterResponse(context.Background(), f) {
		t.Error("AfterResponse = true for a context no handler was given")
	}

	handlerCtx := make(chan context.Context, 1)
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		handlerCtx <- ctx
		return "done", nil
	})})
	p.send(request(1, "x", ""))
	p.recvResponse()
	if jsonrpc.AfterResponse(receive(t, handlerCtx, "the handler's context"), f) {
		t.Error("AfterResponse = true after the handler returned")
	}

	s := newMemPush()
	a := newAfterward()
	close(a.release)
	newConn(t, s, jsonrpc.ConnOptions{Handler: a})
	s.r.Serve(request(1, "start", ""))
	if receive(t, a.taken, "AfterResponse's answer under Serve") {
		t.Error("AfterResponse = true for a request Serve serves on the stream's goroutine")
	}
}

// Work left to run after a response on the read loop that says it will
// wait, with the context of the handler that left it, has reading handed
// off at once, without the watch's help: the request after it is served
// while the work waits.
func TestWillWaitFromWorkAfterAResponseHandsOffReading(t *testing.T) {
	servedMeanwhile := make(chan struct{})
	ended := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "fast" {
			close(servedMeanwhile)
			return "fast", nil
		}
		if !jsonrpc.AfterResponse(ctx, func() {
			jsonrpc.WillWait(ctx) // the handler's context, after the handler returned
			<-servedMeanwhile     // stands for the wait: it ends only once the next request is served
			close(ended)
		}) {
			t.Error("AfterResponse = false in a handler served by the read loop")
		}
		return "started", nil
	})
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: h})
	jsonrpc.SetReadWatchTick(c, time.Hour)
	p.send(request(1, "start", ""))
	if resp := p.recvResponse(); string(resp.Result) != `"started"` {
		t.Fatalf("got %s; want request 1's result \"started\"", describe(resp))
	}
	p.send(request(2, "fast", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "2" {
		t.Fatalf("got %s while the work after request 1 waits; want the response to 2", describe(resp))
	}
	receive(t, ended, "the work after the response to end")
	if got := jsonrpc.ReadLoopServed(c); got == 0 {
		t.Error("the read loop served no request; the test does not exercise it")
	}
}
