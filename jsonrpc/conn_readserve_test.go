package jsonrpc_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/internal/goid"
	"github.com/weftmcp/weft/jsonrpc"
)

// Requests made one at a time are served by the read loop itself, with no
// goroutine switch: the figure that most of a call's cost hangs on.
func TestReadLoopServesRequestsMadeOneAtATime(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: echoHandler})
	const n = 20
	for i := range int64(n) {
		p.send(request(i, "ping", ""))
		if resp := p.recvResponse(); resp.Error != nil || string(resp.Result) != `"ping"` {
			t.Fatalf("response %d = %s; want the result \"ping\"", i, describe(resp))
		}
	}
	if got := jsonrpc.ReadLoopServed(c); got != n {
		t.Errorf("the read loop served %d of %d requests made one at a time; want all", got, n)
	}
}

// A handler that runs long on the read loop does not hold up reading: the
// watch hands reading to a new goroutine, so notifications, other
// requests and a cancellation still arrive while it runs.
func TestSlowHandlerOnTheReadLoopDoesNotHoldUpReading(t *testing.T) {
	b := newBlocker()
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b})
	p.send(request(1, "block", ""))
	receive(t, b.started, "the first handler to start")
	b.sync(t, p)
	p.send(request(2, "fast", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "2" {
		t.Fatalf("got %s while request 1 runs; want the response to 2", describe(resp))
	}
	p.send(request(3, "block", ""))
	receive(t, b.started, "the second handler to start")
	if !c.CancelInbound(jsonrpc.Int64ID(3)) {
		t.Fatal("CancelInbound(3) = false for a running request")
	}
	if err := receive(t, b.ended, "the cancelled handler to end"); !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled handler ended with %v; want context.Canceled", err)
	}
	close(b.release)
	if resp := p.recvResponse(); resp.ID.Raw() != "1" || string(resp.Result) != `"released"` {
		t.Fatalf("got %s; want request 1's result \"released\"", describe(resp))
	}
}

// A handler served by the read loop that calls the peer gets the answer
// without the watch's help: the call hands reading off before it waits.
func TestCallFromTheReadLoopHandsOffReading(t *testing.T) {
	var server *jsonrpc.Conn
	outer := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var res addResult
		if err := server.Call(ctx, "add", addParams{A: 2, B: 3}, &res); err != nil {
			return nil, err
		}
		return res, nil
	})
	client, server := connPair(t, jsonrpc.ConnOptions{Handler: adder("client")}, jsonrpc.ConnOptions{Handler: outer})
	jsonrpc.SetReadWatchTick(server, time.Hour)
	for range 3 {
		var res addResult
		if err := client.Call(timeoutCtx(t), "outer", nil, &res); err != nil || res.Sum != 5 {
			t.Fatalf("outer call = %+v, %v; want sum 5", res, err)
		}
	}
	if got := jsonrpc.ReadLoopServed(server); got == 0 {
		t.Error("the read loop served none of the outer calls; the test does not exercise the hand-off")
	}
}

// A handler served by the read loop that says it will wait (for a
// database, say) has reading handed off at once, without the watch's
// help: the request after it is served while it waits.
func TestWillWaitHandsOffReading(t *testing.T) {
	servedMeanwhile := make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "fast" {
			close(servedMeanwhile)
			return "fast", nil
		}
		jsonrpc.WillWait(ctx)
		<-servedMeanwhile // stands for the wait: it ends only once the next request is served
		return "waited", nil
	})
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: h})
	jsonrpc.SetReadWatchTick(c, time.Hour)
	p.send(request(1, "wait", ""))
	p.send(request(2, "fast", ""))
	// Request 1 ends only once request 2 has been served, so both answers
	// come (in either order) only if reading went on while 1 waited.
	requireHandOff(t, c, p.recvResponse)
}

// requireHandOff reads two responses with recv and fails unless they
// answer requests 1 and 2, of which c's read loop served at least one:
// request 1 waited for request 2, so reading passed on while it waited.
func requireHandOff(t *testing.T, c *jsonrpc.Conn, recv func() *jsonrpc.Response) {
	t.Helper()
	got := map[string]bool{}
	for range 2 {
		got[recv().ID.Raw()] = true
	}
	if !got["1"] || !got["2"] {
		t.Fatalf("got responses to %v; want to 1 and 2", got)
	}
	if got := jsonrpc.ReadLoopServed(c); got == 0 {
		t.Error("the read loop served neither request; the test does not exercise the hand-off")
	}
}

// Requests made one at a time whose handlers each say they will wait pass
// reading back and forth between two goroutines: the one reading passed
// from waits to be handed it back, instead of a new goroutine (with a new
// stack to grow) starting for every request.
func TestReadingPassesBackToTheGoroutineItLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		servedOn := map[uint64]int{} // requests served, by goroutine
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			mu.Lock()
			servedOn[goid.Current()]++
			mu.Unlock()
			jsonrpc.WillWait(ctx)
			return "waited", nil
		})
		c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: h})
		jsonrpc.SetReadWatchTick(c, time.Hour)
		const n = 10
		for i := range int64(n) {
			p.send(request(i, "wait", ""))
			if resp := p.recvResponse(); resp.Error != nil {
				t.Fatalf("response %d = %s; want a result", i, describe(resp))
			}
			synctest.Wait() // the goroutine that answered has settled: waiting, or ended
		}
		if got := jsonrpc.ReadLoopServed(c); got != n {
			t.Fatalf("the read loop served %d of %d requests; want all (the test needs every one to hand reading off)", got, n)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(servedOn) != 2 {
			t.Errorf("%d requests, each handing reading off, were served on %d goroutines; want 2, taking turns", n, len(servedOn))
		}
	})
}

// Goroutines that hand reading off together wait together to be handed it
// back: a second wave of requests that each wait is read by the first
// wave's goroutines, with no new one started for it (up to
// maxSpareReaders).
func TestReadingPassesBackToGoroutinesThatLeftTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		servedOn := map[uint64]bool{} // the goroutines that served a request
		release := make(chan struct{})
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			mu.Lock()
			servedOn[goid.Current()] = true
			wait := release
			mu.Unlock()
			jsonrpc.WillWait(ctx)
			<-wait
			return "waited", nil
		})
		c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: h})
		jsonrpc.SetReadWatchTick(c, time.Hour)
		const wave = 4
		id := int64(0)
		for range 2 {
			for range wave {
				p.send(request(id, "wait", ""))
				id++
				synctest.Wait() // served, and reading handed off
			}
			mu.Lock()
			close(release)
			release = make(chan struct{})
			mu.Unlock()
			for range wave {
				if resp := p.recvResponse(); resp.Error != nil {
					t.Fatalf("response %s; want a result", describe(resp))
				}
			}
			synctest.Wait() // the goroutines that answered have settled: waiting, or ended
		}
		if got := jsonrpc.ReadLoopServed(c); got != 2*wave {
			t.Fatalf("the read loop served %d of %d requests; want all (the test needs every one to hand reading off)", got, 2*wave)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(servedOn) > wave+1 {
			t.Errorf("two waves of %d requests, each handing reading off, were served on %d goroutines; want at most %d, the first wave's and its last reader",
				wave, len(servedOn), wave+1)
		}
	})
}

// After reading has been handed off, one goroutine reads: messages keep
// their order, and at the end of input the connection waits for the
// handler still running on the old read loop, answers it, and ends once.
func TestHandedOffReadingEndsTheConnectionOnce(t *testing.T) {
	b := newBlocker()
	var done int
	sc, sp := pipeEnds(t)
	c := newConn(t, sc, jsonrpc.ConnOptions{Handler: b, OnDone: func() { done++ }})
	p := &peer{t: t, s: sp}
	p.send(request(1, "block", ""))
	receive(t, b.started, "the handler to start")
	for i := range int64(5) {
		p.send(request(10+i, "fast", ""))
		if resp := p.recvResponse(); resp.ID.Raw() != strconv.FormatInt(10+i, 10) {
			t.Fatalf("got %s; want the response to %d", describe(resp), 10+i)
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
		t.Fatal("the connection ended while request 1 was still running")
	case <-time.After(20 * time.Millisecond):
	}
	close(b.release)
	waitDone(t, c)
	if err := c.Err(); !errors.Is(err, io.EOF) {
		t.Errorf("Err() = %v; want the end of input", err)
	}
	if done != 1 {
		t.Errorf("OnDone ran %d times; want once", done)
	}
}

// An idle connection keeps only its read loop: nothing watches it between
// requests.
func TestIdleConnectionKeepsOnlyItsReadLoop(t *testing.T) {
	before := runtime.NumGoroutine()
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: echoHandler})
	p.send(request(1, "ping", ""))
	p.recvResponse()
	if got := settledGoroutines(t, before+1); got > before+1 {
		t.Errorf("an idle connection holds %d goroutines; want 1 (its read loop)", got-before)
	}
}
