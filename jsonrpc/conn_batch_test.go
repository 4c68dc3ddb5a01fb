package jsonrpc_test

import (
	"context"
	stdjson "encoding/json"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
)

func TestBatchesAreRejectedUnlessAllowed(t *testing.T) {
	for name, allow := range map[string]func() bool{
		"nil":   nil,
		"false": func() bool { return false },
	} {
		t.Run(name, func(t *testing.T) {
			_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: newBlocker(), AllowBatch: allow})
			p.send(jsonrpc.Batch{request(1, "a", ""), request(2, "b", "")})
			want := `response id=null error=-32600 "batches are not supported by the negotiated protocol version" data=`
			if got := describe(p.recvResponse()); got != want {
				t.Fatalf("got %s; want %s", got, want)
			}
			p.send(request(3, "c", ""))
			if resp := p.recvResponse(); resp.ID.Raw() != "3" {
				t.Fatalf("got %s; want the connection to carry on", describe(resp))
			}
		})
	}
}

func TestAllowedBatchIsAnsweredWithOneBatch(t *testing.T) {
	var notified atomic.Int32
	var asked atomic.Int32
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			notified.Add(1)
			return nil, nil
		}
		if req.Method == "fail" {
			return nil, jsonrpc.NewError(-32602, "bad")
		}
		return req.Method, nil
	})
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: handler, AllowBatch: func() bool { asked.Add(1); return true }})
	p.send(jsonrpc.Batch{
		request(1, "a", ""),
		&jsonrpc.Request{Method: "note"},
		request(2, "fail", ""),
		&jsonrpc.Request{ID: jsonrpc.StringID("x"), Method: "c"},
	})
	msg := p.recv()
	batch, ok := msg.(jsonrpc.Batch)
	if !ok {
		t.Fatalf("got %s; want a batch", describe(msg))
	}
	var got []string
	for _, m := range batch {
		got = append(got, describe(m))
	}
	sort.Strings(got)
	want := []string{
		`response id="x" result="c"`,
		`response id=1 result="a"`,
		`response id=2 error=-32602 "bad" data=`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("batch reply:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if notified.Load() != 1 || asked.Load() != 1 {
		t.Errorf("notification handled %d times, AllowBatch asked %d times; want 1 and 1", notified.Load(), asked.Load())
	}
}

func TestBatchOfNotificationsProducesNoOutput(t *testing.T) {
	b := newBlocker()
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b, AllowBatch: func() bool { return true }})
	p.send(jsonrpc.Batch{&jsonrpc.Request{Method: "n1"}, &jsonrpc.Request{Method: "n2"}})
	receive(t, b.synced, "the first notification")
	receive(t, b.synced, "the second notification")
	p.send(request(7, "after", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "7" {
		t.Fatalf("got %s; an all-notification batch must produce no output", describe(resp))
	}
}

func TestBatchMayCarryResponsesToOurCalls(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{AllowBatch: func() bool { return true }})
	results := make(chan string, 2)
	for range 2 {
		go func() {
			var r string
			if err := c.Call(timeoutCtx(t), "m", nil, &r); err != nil {
				r = err.Error()
			}
			results <- r
		}()
	}
	first, second := p.recv().(*jsonrpc.Request), p.recv().(*jsonrpc.Request)
	p.send(jsonrpc.Batch{
		&jsonrpc.Response{ID: first.ID, Result: stdjson.RawMessage(`"one"`)},
		&jsonrpc.Response{ID: second.ID, Result: stdjson.RawMessage(`"two"`)},
	})
	got := []string{receive(t, results, "a call"), receive(t, results, "a call")}
	sort.Strings(got)
	if got[0] != "one" || got[1] != "two" {
		t.Errorf("calls answered by a batch got %v", got)
	}
}

func TestBatchRequestsShareTheQueueBound(t *testing.T) {
	b := newBlocker()
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: b, MaxInFlight: 1, MaxQueued: 1, AllowBatch: func() bool { return true }})
	p.send(jsonrpc.Batch{request(1, "block", ""), request(2, "block", ""), request(3, "block", "")})
	receive(t, b.started, "request 1 to start")
	// The read loop takes in the whole batch (1 runs, 2 waits, 3 is refused)
	// before the notification sent after it: only then may 1 finish, or 3
	// would find the queue free.
	b.sync(t, p)
	close(b.release)
	batch := p.recv().(jsonrpc.Batch)
	var got []string
	for _, m := range batch {
		r := m.(*jsonrpc.Response)
		code := int64(0)
		if r.Error != nil {
			code = r.Error.Code
		}
		got = append(got, r.ID.Raw()+":"+map[bool]string{true: "ok", false: "err"}[code == 0])
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "1:ok 2:ok 3:err" {
		t.Errorf("batch reply %v; want 1 and 2 answered and 3 refused as busy", got)
	}
}

// JSON-RPC 2.0 §6: each invalid element of a batch gets its own -32600,
// valid requests are served, and an invalid response fails the call it
// names without an answer.
func TestBatchAnswersEachInvalidElementAndServesTheRest(t *testing.T) {
	c, p := stdioPeer(t, jsonrpc.ConnOptions{Handler: newBlocker(), AllowBatch: func() bool { return true }})
	done := make(chan error, 1)
	go func() { done <- c.Call(timeoutCtx(t), "roots/list", nil, nil) }()
	call := p.recv().(*jsonrpc.Request)
	p.sendLine(`[{"jsonrpc":"2.0","id":1,"method":"ping"},1,{"jsonrpc":"2.0","id":2},` +
		`{"jsonrpc":"2.0","id":` + call.ID.Raw() + `,"result":{},"error":{"code":1,"message":"both"}}]`)
	batch, ok := p.recv().(jsonrpc.Batch)
	if !ok {
		t.Fatal("the batch was not answered with a batch")
	}
	var got []string
	for _, m := range batch {
		got = append(got, describe(m))
	}
	sort.Strings(got)
	want := []string{
		`response id=1 result="fast"`,
		`response id=2 error=-32600 "batch element 2: member \"method\" is missing (a request needs \"method\"; a response needs \"result\" or \"error\")" data=`,
		`response id=null error=-32600 "batch element 1 must be an object, not a number" data=`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("batch reply:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := receive(t, done, "the call"); err == nil || !strings.Contains(err.Error(), `both "result" and "error"`) {
		t.Errorf("Call = %v; want the invalid response in the batch reported", err)
	}
}
