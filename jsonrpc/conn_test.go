package jsonrpc_test

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/internal/wirejson"
	"github.com/weftmcp/weft/jsonrpc"
)

type addParams struct {
	A, B int
}

type addResult struct {
	Sum  int    `json:"sum"`
	Side string `json:"side"`
}

// adder serves "add" and names its side in the result.
func adder(side string) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var p addParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad params: %v", err)
		}
		return addResult{Sum: p.A + p.B, Side: side}, nil
	})
}

func TestCallsCorrelateBothWays(t *testing.T) {
	a, b := connPair(t, jsonrpc.ConnOptions{Handler: adder("a")}, jsonrpc.ConnOptions{Handler: adder("b")})
	const perSide = 200
	var wg sync.WaitGroup
	errs := make(chan error, 2*perSide)
	for i := range perSide {
		for _, c := range []struct {
			conn *jsonrpc.Conn
			want string
		}{{a, "b"}, {b, "a"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var res addResult
				if err := c.conn.Call(timeoutCtx(t), "add", addParams{A: i, B: 1000 * i}, &res); err != nil {
					errs <- err
					return
				}
				if res.Sum != 1001*i || res.Side != c.want {
					errs <- fmt.Errorf("call %d got %+v; want sum %d from side %s", i, res, 1001*i, c.want)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A handler that calls back into its peer while every handler slot is taken
// must still get its answer: the read loop delivers responses without
// waiting for a slot.
func TestReadLoopNeverWaitsForHandlerSlots(t *testing.T) {
	var b *jsonrpc.Conn
	outer := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var res addResult
		if err := b.Call(ctx, "add", addParams{A: 1, B: 2}, &res); err != nil {
			return nil, err
		}
		return res, nil
	})
	var client *jsonrpc.Conn
	client, b = connPair(t,
		jsonrpc.ConnOptions{Handler: adder("client")},
		jsonrpc.ConnOptions{Handler: outer, MaxInFlight: 1, MaxQueued: 100})
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res addResult
			if err := client.Call(timeoutCtx(t), "outer", nil, &res); err != nil || res.Sum != 3 {
				t.Errorf("outer call = %+v, %v; want sum 3", res, err)
			}
		}()
	}
	wg.Wait()
}

// The spec: "Responses MUST include the same ID as the request they
// correspond to." The ID is echoed in its exact form: 1 and "1" differ.
func TestResponsesMustIncludeTheSameID(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		started <- struct{}{}
		<-release
		id, _ := jsonrpc.InboundID(ctx)
		return map[string]string{"seen": id.Raw()}, nil
	})})
	p.send(&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m"})
	p.send(&jsonrpc.Request{ID: jsonrpc.StringID("1"), Method: "m"})
	receive(t, started, "the first handler")
	receive(t, started, "the second handler") // both in flight at once: the ids did not collide
	close(release)
	got := map[string]string{}
	for range 2 {
		resp := p.recvResponse()
		got[resp.ID.Raw()] = string(resp.Result)
	}
	want := map[string]string{`1`: `{"seen":"1"}`, `"1"`: `{"seen":"\"1\""}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("responses by id = %v; want %v", got, want)
	}
}

// A response whose id matches a pending call only in value ("1" for 1) is
// not that call's response.
func TestResponseWithSameValueButOtherTypeDoesNotAnswerACall(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{})
	done := make(chan error, 1)
	var result stdjson.RawMessage
	go func() { done <- c.Call(timeoutCtx(t), "m", nil, &result) }()
	req := p.recv().(*jsonrpc.Request)
	p.send(&jsonrpc.Response{ID: jsonrpc.StringID(req.ID.Raw()), Result: []byte(`"wrong"`)})
	p.send(&jsonrpc.Response{ID: req.ID, Result: []byte(`"right"`)})
	if err := receive(t, done, "the call"); err != nil || string(result) != `"right"` {
		t.Fatalf("Call = %s, %v; want \"right\"", result, err)
	}
}

func TestHandlerOutcomesOnTheWire(t *testing.T) {
	sentinel := errors.New("disk on fire")
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "raw":
			return stdjson.RawMessage(`{"kept" : [1, 2]}`), nil
		case "value":
			return addResult{Sum: 5, Side: "s"}, nil
		case "nil":
			return nil, nil
		case "rpc-error":
			return nil, jsonrpc.NewError(-32042, "needs a URL").WithData(map[string]string{"url": "https://x"})
		case "wrapped-rpc-error":
			return nil, fmt.Errorf("context: %w", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad arg"))
		case "plain-error":
			return nil, fmt.Errorf("reading config: %w", sentinel)
		case "bad-raw":
			return stdjson.RawMessage(`{"unterminated":`), nil
		case "vouched":
			// Spaced, as no vouched text is, to show it is not checked
			// and compacted again.
			return wirejson.Vouch([]byte(`{"vouched" : [1, 2]}`)), nil
		case "unencodable":
			return make(chan int), nil
		case "bad-error-data":
			return nil, &jsonrpc.Error{Code: 7, Message: "m", Data: stdjson.RawMessage(`{`)}
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no %s", req.Method)
	})
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: handler})
	tests := []struct{ method, want string }{
		{"raw", `response id=1 result={"kept":[1,2]}`},
		{"value", `response id=1 result={"sum":5,"side":"s"}`},
		{"nil", `response id=1 result=null`},
		{"rpc-error", `response id=1 error=-32042 "needs a URL" data={"url":"https://x"}`},
		{"wrapped-rpc-error", `response id=1 error=-32602 "bad arg" data=`},
		{"plain-error", `response id=1 error=-32603 "reading config: disk on fire" data=`},
		{"bad-raw", `response id=1 error=-32603 "internal error: cannot encode the result of bad-raw: the raw result is not valid JSON" data=`},
		{"vouched", `response id=1 result={"vouched" : [1, 2]}`},
		{"bad-error-data", `response id=1 error=7 "m" data=`},
	}
	for _, tt := range tests {
		p.send(request(1, tt.method, ""))
		if got := describe(p.recvResponse()); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.method, got, tt.want)
		}
	}
	p.send(request(2, "unencodable", ""))
	if resp := p.recvResponse(); resp.Error == nil || resp.Error.Code != jsonrpc.CodeInternalError ||
		!strings.Contains(resp.Error.Message, "cannot encode the result of unencodable") {
		t.Errorf("unencodable result: got %s", describe(resp))
	}
}

func TestNilHandlerAnswersMethodNotFound(t *testing.T) {
	_, p := pipePeer(t, jsonrpc.ConnOptions{})
	p.send(&jsonrpc.Request{Method: "notifications/ignored"})
	p.send(request(3, "tools/list", ""))
	if got, want := describe(p.recvResponse()), `response id=3 error=-32601 "method \"tools/list\" not found" data=`; got != want {
		t.Errorf("got %s; want %s", got, want)
	}
}

func TestCallResultForms(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{})
	answer := func(result string) {
		req := p.recv().(*jsonrpc.Request)
		p.send(&jsonrpc.Response{ID: req.ID, Result: []byte(result)})
	}

	var raw stdjson.RawMessage
	go answer(`{"a" : 1}`)
	if err := c.Call(timeoutCtx(t), "m", nil, &raw); err != nil || string(raw) != `{"a":1}` {
		t.Errorf("into *RawMessage: %s, %v", raw, err)
	}
	var typed addResult
	go answer(`{"sum":3,"side":"x","extra":true}`)
	if err := c.Call(timeoutCtx(t), "m", nil, &typed); err != nil || typed != (addResult{3, "x"}) {
		t.Errorf("into a struct: %+v, %v", typed, err)
	}
	go answer(`{"sum":3}`)
	if err := c.Call(timeoutCtx(t), "m", nil, nil); err != nil {
		t.Errorf("into nil: %v", err)
	}
	go answer(`{"sum":"three"}`)
	if err := c.Call(timeoutCtx(t), "m", nil, &typed); err == nil || !strings.Contains(err.Error(), "decoding the result") {
		t.Errorf("mismatched result: %v; want a decoding error", err)
	}
	go answer(`{"Sum":4}`) // member names are case-sensitive
	typed = addResult{}
	if err := c.Call(timeoutCtx(t), "m", nil, &typed); err != nil || typed.Sum != 0 {
		t.Errorf("case-folded member: %+v, %v; want it ignored", typed, err)
	}

	go func() {
		req := p.recv().(*jsonrpc.Request)
		p.send(&jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(-32602, "nope")})
	}()
	err := c.Call(timeoutCtx(t), "m", nil, &raw)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 || rpcErr.Message != "nope" {
		t.Errorf("error response: %v; want *Error -32602 nope", err)
	}
}

func TestCallParamsForms(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{})
	var nilPtr *addParams
	tests := []struct {
		params any
		want   string
	}{
		{nil, ""},
		{nilPtr, ""},
		{addParams{A: 1}, `{"A":1,"B":0}`},
		{stdjson.RawMessage(`[1,2]`), `[1,2]`},
		{map[string]any{"x": "y"}, `{"x":"y"}`},
	}
	for _, tt := range tests {
		sent := make(chan error, 1)
		go func() { sent <- c.Notify(timeoutCtx(t), "n", tt.params) }()
		if got := string(p.recv().(*jsonrpc.Request).Params); got != tt.want {
			t.Errorf("params %#v sent as %q; want %q", tt.params, got, tt.want)
		}
		if err := receive(t, sent, "Notify"); err != nil {
			t.Fatalf("Notify(%#v): %v", tt.params, err)
		}
	}
	for _, bad := range []any{5, "s", []byte("x"), make(chan int)} {
		if err := c.Call(timeoutCtx(t), "m", bad, nil); err == nil {
			t.Errorf("Call with params %#v succeeded; want an error", bad)
		}
	}
}

// The spec: "Notifications MUST NOT include an ID." Notify sends none, and a
// notification handler gets no response sent for it.
func TestNotificationsMustNotIncludeAnID(t *testing.T) {
	c, p := pipePeer(t, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return "ignored", errors.New("also ignored")
	})})
	sent := make(chan error, 1)
	go func() { sent <- c.Notify(timeoutCtx(t), "notifications/progress", map[string]int{"progress": 1}) }()
	if req := p.recv().(*jsonrpc.Request); req.ID.IsValid() {
		t.Errorf("notification sent with id %s", req.ID)
	}
	if err := receive(t, sent, "Notify"); err != nil {
		t.Fatal(err)
	}
	p.send(&jsonrpc.Request{Method: "notifications/x"})
	p.send(request(1, "m", ""))
	if resp := p.recvResponse(); resp.ID.Raw() != "1" {
		t.Errorf("first message after a notification answers %s; want only request 1 answered", resp.ID)
	}
}

func TestNotificationsAreHandledInArrivalOrder(t *testing.T) {
	var mu sync.Mutex
	var seen []int
	_, p := pipePeer(t, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			var n []int
			json.Unmarshal(req.Params, &n)
			mu.Lock()
			seen = append(seen, n[0])
			mu.Unlock()
		}
		return nil, nil
	})})
	const count = 200
	for i := range count {
		p.send(&jsonrpc.Request{Method: "n", Params: []byte(fmt.Sprintf("[%d]", i))})
	}
	p.send(request(1, "sync", ""))
	p.recvResponse()
	mu.Lock()
	defer mu.Unlock()
	for i, n := range seen {
		if n != i {
			t.Fatalf("notification %d handled in position %d: %v", n, i, seen)
		}
	}
	if len(seen) != count {
		t.Fatalf("handled %d notifications; want %d", len(seen), count)
	}
}

// recordingStream passes messages through to a real stream and records the
// InboundID of the context each Write receives.
type recordingStream struct {
	jsonrpc.Stream
	mu     sync.Mutex
	writes []string
}

func (r *recordingStream) Write(ctx context.Context, msg jsonrpc.Message) error {
	id, ok := jsonrpc.InboundID(ctx)
	r.mu.Lock()
	r.writes = append(r.writes, fmt.Sprintf("%s inbound=%v:%s", kindOf(msg), ok, id.Raw()))
	r.mu.Unlock()
	return r.Stream.Write(ctx, msg)
}

func kindOf(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return "request " + m.Method
	case *jsonrpc.Response:
		return "response " + m.ID.Raw()
	}
	return "batch"
}

// Stream.Write gets the handler's context for messages sent from inside a
// handler, so a transport can route them by InboundID.
func TestWritesFromHandlersCarryTheInboundID(t *testing.T) {
	var c *jsonrpc.Conn
	handler := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if id, ok := jsonrpc.InboundID(ctx); !ok || id != req.ID {
			return nil, fmt.Errorf("InboundID = %s, %v; want %s", id, ok, req.ID)
		}
		return nil, c.Notify(ctx, "notifications/progress", nil)
	})
	sc, sp := pipeEnds(t)
	rec := &recordingStream{Stream: sc}
	c = newConn(t, rec, jsonrpc.ConnOptions{Handler: handler})
	p := &peer{t: t, s: sp}
	p.send(&jsonrpc.Request{ID: jsonrpc.StringID("req-7"), Method: "m"})
	if got := describe(p.recv()); got != `request id=<none> method="notifications/progress" params=` {
		t.Fatalf("first message: %s", got)
	}
	if resp := p.recvResponse(); resp.Error != nil {
		t.Fatalf("handler failed: %s", describe(resp))
	}
	go c.Notify(timeoutCtx(t), "outside", nil)
	p.recv()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	want := []string{
		`request notifications/progress inbound=true:"req-7"`,
		`response "req-7" inbound=true:"req-7"`,
		`request outside inbound=false:`,
	}
	if fmt.Sprint(rec.writes) != fmt.Sprint(want) {
		t.Errorf("writes:\n got %q\nwant %q", rec.writes, want)
	}
}

func TestInboundIDOutsideAHandler(t *testing.T) {
	if id, ok := jsonrpc.InboundID(context.Background()); ok || id.IsValid() {
		t.Errorf("InboundID(Background) = %s, %v; want none", id, ok)
	}
}
