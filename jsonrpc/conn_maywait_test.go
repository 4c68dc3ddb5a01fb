package jsonrpc_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/weftmcp/weft/internal/goid"
	"github.com/weftmcp/weft/jsonrpc"
)

// A handler served by the read loop that says it may wait briefly
// (MayWait), with no input read ahead, keeps reading on its goroutine: a
// request sent meanwhile is read only once it is answered, and every
// request is served on the one goroutine.
func TestMayWaitWithNoInputWaitingKeepsReadingOnItsGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var mu sync.Mutex
		served := map[string]uint64{} // method → goroutine
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			mu.Lock()
			served[req.Method] = goid.Current()
			mu.Unlock()
			if req.Method == "wait" {
				jsonrpc.MayWait(ctx)
				<-release
			}
			return req.Method, nil
		})
		c, p := stdioPeer(t, jsonrpc.ConnOptions{Handler: h})
		jsonrpc.SetReadWatchTick(c, time.Hour)
		p.sendLine(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
		synctest.Wait() // request 1 waits, past MayWait
		sent := make(chan error, 1)
		go func() {
			_, err := io.WriteString(p.w, `{"jsonrpc":"2.0","id":2,"method":"fast"}`+"\n")
			sent <- err
		}()
		synctest.Wait()
		mu.Lock()
		_, readMeanwhile := served["fast"]
		mu.Unlock()
		if readMeanwhile {
			t.Error("request 2 was served while request 1 waited after MayWait with no input read ahead; want reading kept on request 1's goroutine")
		}
		close(release)
		for range 2 {
			if resp := p.recvResponse(); resp.Error != nil {
				t.Fatalf("got %s; want a result", describe(resp))
			}
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if served["wait"] != served["fast"] {
			t.Error("the two requests were served on two goroutines; want one (no hand-off)")
		}
		if got := jsonrpc.ReadLoopServed(c); got != 2 {
			t.Errorf("the read loop served %d of 2 requests; want both", got)
		}
	})
}

// Reading passes on before the wait, so a request that comes after the
// waiting one is served while it waits: after MayWait when the request
// was read ahead already, and after WillWait whether or not it was. In
// each case request 1 waits until request 2 has been served, so both are
// answered only if reading passed on (the watch, which would pass it on
// too, is an hour away).
func TestReadingPassesOnBeforeAWaitWhenItMust(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wait     func(context.Context)
		together bool // both requests in one write, so the second is read ahead
	}{
		{"MayWait with the next request read ahead", jsonrpc.MayWait, true},
		{"WillWait with nothing read ahead", jsonrpc.WillWait, false},
		{"WillWait with the next request read ahead", jsonrpc.WillWait, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servedFast, testEnded := make(chan struct{}), make(chan struct{})
			h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				if req.Method == "fast" {
					close(servedFast)
					return "fast", nil
				}
				tc.wait(ctx)
				select {
				case <-servedFast:
				case <-testEnded: // the test failed
				}
				return "waited", nil
			})
			c, p := stdioPeer(t, jsonrpc.ConnOptions{Handler: h})
			t.Cleanup(func() { close(testEnded) }) // before the connection's cleanup, which waits for the handlers
			jsonrpc.SetReadWatchTick(c, time.Hour)
			first := `{"jsonrpc":"2.0","id":1,"method":"wait"}`
			second := `{"jsonrpc":"2.0","id":2,"method":"fast"}`
			if tc.together {
				p.sendLine(first + "\n" + second)
			} else {
				p.sendLine(first)
				p.sendLine(second)
			}
			requireHandOff(t, c, p.recvResponse)
		})
	}
}

// MayWait passes reading on when another of the connection's requests is
// being handled, even with nothing read ahead: the peer does not make one
// request at a time, so more may come while this one waits. Request 1
// holds a handler slot (it passed reading on with WillWait); request 2
// calls MayWait and waits until request 3, sent on its own, has been
// served.
func TestMayWaitPassesReadingOnWhileOtherRequestsAreHandled(t *testing.T) {
	release, servedFast, testEnded := make(chan struct{}), make(chan struct{}), make(chan struct{})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "hold":
			jsonrpc.WillWait(ctx)
			select {
			case <-release:
			case <-testEnded:
			}
		case "wait":
			jsonrpc.MayWait(ctx)
			select {
			case <-servedFast:
			case <-testEnded: // the test failed
			}
		case "fast":
			close(servedFast)
		}
		return req.Method, nil
	})
	c, p := stdioPeer(t, jsonrpc.ConnOptions{Handler: h})
	t.Cleanup(func() { close(testEnded) }) // before the connection's cleanup, which waits for the handlers
	jsonrpc.SetReadWatchTick(c, time.Hour)
	p.sendLine(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	p.sendLine(`{"jsonrpc":"2.0","id":2,"method":"wait"}`)
	go io.WriteString(p.w, `{"jsonrpc":"2.0","id":3,"method":"fast"}`+"\n") // read only if reading passed on
	got := map[string]bool{}
	for range 2 {
		got[p.recvResponse().ID.Raw()] = true
	}
	if !got["2"] || !got["3"] {
		t.Fatalf("got responses to %v; want to 2 and 3 while 1 is held", got)
	}
	close(release)
	if resp := p.recvResponse(); resp.ID.Raw() != "1" {
		t.Fatalf("got %s; want the response to 1", describe(resp))
	}
}
