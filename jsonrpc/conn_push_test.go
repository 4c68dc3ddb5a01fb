package jsonrpc_test

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
)

// pushedStream turns a Stream into a PushStream: a goroutine of its own
// reads the stream and pushes what it reads to the Conn's Receiver, as a
// transport with goroutines of its own would.
type pushedStream struct {
	jsonrpc.Stream
}

func (s *pushedStream) Push(r jsonrpc.Receiver) {
	go func() {
		for {
			msg, err := s.Stream.Read(context.Background())
			r.Receive(msg, err)
			var de *jsonrpc.DecodeError
			if err != nil && !errors.As(err, &de) {
				return
			}
		}
	}()
}

func (s *pushedStream) Read(context.Context) (jsonrpc.Message, error) {
	panic("jsonrpc: Read called on a PushStream")
}

// TestConnSuiteOverAPushStream runs the Conn's tests again with every Conn
// over a PushStream, whose messages arrive through Receiver.Receive: the two
// ways of taking messages in must behave the same on the wire.
func TestConnSuiteOverAPushStream(t *testing.T) {
	suite := map[string]func(*testing.T){
		"CallsCorrelateBothWays":                         TestCallsCorrelateBothWays,
		"ReadLoopNeverWaitsForHandlerSlots":              TestReadLoopNeverWaitsForHandlerSlots,
		"ResponsesMustIncludeTheSameID":                  TestResponsesMustIncludeTheSameID,
		"HandlerOutcomesOnTheWire":                       TestHandlerOutcomesOnTheWire,
		"NotificationsAreHandledInArrivalOrder":          TestNotificationsAreHandledInArrivalOrder,
		"WritesFromHandlersCarryTheInboundID":            TestWritesFromHandlersCarryTheInboundID,
		"CloseFailsCallsAndCancelsHandlers":              TestCloseFailsCallsAndCancelsHandlers,
		"PeerClosingEndsTheConnection":                   TestPeerClosingEndsTheConnection,
		"EndOfInputLetsAcceptedRequestsFinish":           TestEndOfInputLetsAcceptedRequestsFinish,
		"ReadFailureEndsTheConnectionAtOnce":             TestReadFailureEndsTheConnectionAtOnce,
		"EndOfInputFlushesPendingReplies":                TestEndOfInputFlushesPendingReplies,
		"CancelInboundCancelsTheHandler":                 TestCancelInboundCancelsTheHandlerAndSuppressesItsResponse,
		"CancelInboundRemovesAQueuedRequest":             TestCancelInboundRemovesAQueuedRequest,
		"LateResponseAfterAbandonmentIsDropped":          TestLateResponseAfterAbandonmentIsDropped,
		"FullQueueAnswersServerBusyAtOnce":               TestFullQueueAnswersServerBusyAtOnce,
		"QueuedRequestsRunInArrivalOrder":                TestQueuedRequestsRunInArrivalOrder,
		"DuplicateInboundIDIsRefused":                    TestDuplicateInboundIDIsRefused,
		"AllowedBatchIsAnsweredWithOneBatch":             TestAllowedBatchIsAnsweredWithOneBatch,
		"BatchRequestsShareTheQueueBound":                TestBatchRequestsShareTheQueueBound,
		"UndecodableMessagesAreAnsweredAndTheConnLives":  TestUndecodableMessagesAreAnsweredAndTheConnectionLives,
		"InvalidResponseFailsItsCallWithoutAnAnswer":     TestInvalidResponseFailsItsCallWithoutAnAnswer,
		"PanickingNotificationHandlerKeepsTheConnection": TestPanickingNotificationHandlerKeepsTheConnection,
	}
	for name, test := range suite {
		t.Run(name, func(t *testing.T) {
			pushing = true
			t.Cleanup(func() { pushing = false })
			test(t)
		})
	}
}

// memPush is a PushStream whose test drives the Receiver directly and
// collects what the Conn writes.
type memPush struct {
	r       jsonrpc.Receiver
	mu      sync.Mutex
	written []jsonrpc.Message
	wrote   chan struct{} // signalled on every write
	closed  bool
}

func newMemPush() *memPush { return &memPush{wrote: make(chan struct{}, 1024)} }

func (s *memPush) Push(r jsonrpc.Receiver) { s.r = r }

func (s *memPush) Read(context.Context) (jsonrpc.Message, error) {
	panic("jsonrpc: Read called on a PushStream")
}

func (s *memPush) Write(_ context.Context, msg jsonrpc.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return io.ErrClosedPipe
	}
	s.written = append(s.written, msg)
	s.wrote <- struct{}{}
	return nil
}

func (s *memPush) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// messages returns a copy of what was written so far.
func (s *memPush) messages() []jsonrpc.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]jsonrpc.Message(nil), s.written...)
}

// awaitWrites waits until n messages have been written in all.
func (s *memPush) awaitWrites(t *testing.T, n int) []jsonrpc.Message {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		if msgs := s.messages(); len(msgs) >= n {
			return msgs
		}
		select {
		case <-s.wrote:
		case <-deadline:
			t.Fatalf("%d messages written within %v; want %d", len(s.messages()), waitLimit, n)
		}
	}
}

// echoHandler answers every request with its own method name.
var echoHandler = jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
	return req.Method, nil
})

func TestServeAnswersBeforeItReturns(t *testing.T) {
	s := newMemPush()
	var sawID jsonrpc.ID
	c := newConn(t, s, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		sawID, _ = jsonrpc.InboundID(ctx)
		return "done", nil
	})})
	s.r.Serve(request(7, "work", ""))
	msgs := s.messages()
	if len(msgs) != 1 || describe(msgs[0]) != `response id=7 result="done"` {
		t.Fatalf("written when Serve returned: %v; want the response to id 7", msgs)
	}
	if sawID.String() != "7" {
		t.Errorf("the handler's InboundID is %v; want 7", sawID)
	}
	if c.Err() != nil {
		t.Errorf("Err() = %v on an open connection", c.Err())
	}
}

func TestServeQueuesWhenEverySlotIsTaken(t *testing.T) {
	s := newMemPush()
	b := newBlocker()
	newConn(t, s, jsonrpc.ConnOptions{Handler: b, MaxInFlight: 1})
	s.r.Receive(request(1, "block", ""), nil)
	receive(t, b.started, "the first handler")
	s.r.Serve(request(2, "block", "")) // queued: returns at once
	if msgs := s.messages(); len(msgs) != 0 {
		t.Fatalf("written while the only slot is taken: %v", msgs)
	}
	close(b.release)
	msgs := s.awaitWrites(t, 2)
	got := map[string]bool{describe(msgs[0]): true, describe(msgs[1]): true}
	for _, want := range []string{`response id=1 result="released"`, `response id=2 result="released"`} {
		if !got[want] {
			t.Errorf("responses %v lack %s", got, want)
		}
	}
}

func TestServedSlotPassesToTheNextQueuedRequest(t *testing.T) {
	s := newMemPush()
	b := newBlocker()
	newConn(t, s, jsonrpc.ConnOptions{Handler: b, MaxInFlight: 1})
	served := make(chan struct{})
	go func() {
		s.r.Serve(request(1, "block", ""))
		close(served)
	}()
	receive(t, b.started, "the served handler")
	s.r.Receive(request(2, "block", ""), nil) // queued behind the served one
	close(b.release)
	receive(t, served, "Serve to return")
	receive(t, b.started, "the queued handler, started once the slot was free")
	msgs := s.awaitWrites(t, 2)
	if describe(msgs[0]) != `response id=1 result="released"` || describe(msgs[1]) != `response id=2 result="released"` {
		t.Errorf("written %v; want the responses to 1 then 2", msgs)
	}
}

func TestServeOfANotificationOrResponseIsReceive(t *testing.T) {
	s := newMemPush()
	notified := make(chan string, 1)
	c := newConn(t, s, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			notified <- req.Method
		}
		return nil, nil
	})})
	s.r.Serve(&jsonrpc.Request{Method: "note"})
	if got := receive(t, notified, "the notification"); got != "note" {
		t.Errorf("notification handler saw %q", got)
	}
	answered := make(chan error, 1)
	go func() { answered <- c.Call(timeoutCtx(t), "ask", nil, nil) }()
	call := s.awaitWrites(t, 1)[0].(*jsonrpc.Request)
	s.r.Serve(&jsonrpc.Response{ID: call.ID, Result: []byte(`{}`)})
	if err := receive(t, answered, "the call"); err != nil {
		t.Errorf("Call = %v; want its response", err)
	}
}

func TestPushEndOfInputAnswersAcceptedRequestsThenEnds(t *testing.T) {
	s := newMemPush()
	b := newBlocker()
	doneHook := make(chan struct{})
	c := newConn(t, s, jsonrpc.ConnOptions{Handler: b, OnDone: func() { close(doneHook) }})
	s.r.Receive(request(1, "block", ""), nil)
	receive(t, b.started, "the handler")
	s.r.Receive(nil, io.EOF)
	s.r.Receive(request(2, "late", ""), nil) // after the end of input: ignored
	select {
	case <-c.Done():
		t.Fatal("the connection ended while a request it accepted was running")
	default:
	}
	close(b.release)
	waitDone(t, c)
	receive(t, doneHook, "OnDone")
	msgs := s.messages()
	if len(msgs) != 1 || describe(msgs[0]) != `response id=1 result="released"` {
		t.Errorf("written %v; want only the response to 1", msgs)
	}
	if err := c.Err(); !errors.Is(err, io.EOF) {
		t.Errorf("Err() = %v; want io.EOF", err)
	}
}

func TestOnDoneRunsOnceBeforeDoneCloses(t *testing.T) {
	for _, pushed := range []bool{false, true} {
		var stream jsonrpc.Stream
		if pushed {
			stream = newMemPush()
		} else {
			stream, _ = pipeEnds(t)
		}
		type seen struct {
			doneClosed bool
			err        error
		}
		calls := make(chan seen, 2)
		var c *jsonrpc.Conn
		c = jsonrpc.NewConn(stream, jsonrpc.ConnOptions{Logger: quiet, OnDone: func() {
			var s seen
			select {
			case <-c.Done():
				s.doneClosed = true
			default:
			}
			s.err = c.Err()
			c.Close() // must not deadlock
			calls <- s
		}})
		c.Close()
		c.Close()
		waitDone(t, c)
		s := receive(t, calls, "OnDone")
		if err := c.Close(); err != nil { // as OnDone may
			t.Errorf("pushed=%v: Close after the end = %v", pushed, err)
		}
		if s.doneClosed || !errors.Is(s.err, jsonrpc.ErrClosed) {
			t.Errorf("pushed=%v: OnDone saw Done closed=%v, Err()=%v; want Done open and Err ErrClosed", pushed, s.doneClosed, s.err)
		}
		select {
		case <-calls:
			t.Errorf("pushed=%v: OnDone ran twice", pushed)
		default:
		}
	}
}

// settledGoroutines waits until the number of goroutines is at most want,
// and returns the number.
func settledGoroutines(t *testing.T, want int) int {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An idle connection over a PushStream holds no goroutine: none while it
// serves requests inline, and the handler goroutines of requests received
// without Serve end soon after they are done.
func TestIdlePushConnsHoldNoGoroutine(t *testing.T) {
	const n = 200
	before := runtime.NumGoroutine()
	streams := make([]*memPush, n)
	for i := range streams {
		streams[i] = newMemPush()
		newConn(t, streams[i], jsonrpc.ConnOptions{Handler: echoHandler})
	}
	for _, s := range streams {
		s.r.Serve(request(1, "initialize", ""))
		s.r.Receive(&jsonrpc.Request{Method: "notifications/initialized"}, nil)
		s.r.Receive(request(2, "ping", ""), nil)
		s.r.Receive(nil, &jsonrpc.DecodeError{ID: jsonrpc.NullID, Err: jsonrpc.NewError(jsonrpc.CodeParseError, "not JSON")})
	}
	for _, s := range streams {
		s.awaitWrites(t, 3) // initialize, ping and the parse error answered
	}
	if got := settledGoroutines(t, before); got > before {
		t.Errorf("%d idle connections hold %d goroutines; want none", n, got-before)
	}
}

// idleConnBudget is the most heap an idle connection over a PushStream may
// hold: a legacy Streamable HTTP session must cost at most 2 KiB in all, and
// the connection is only part of it.
const idleConnBudget = 768

// nopPush is a PushStream that drops what is written to it.
type nopPush struct{ r jsonrpc.Receiver }

func (s *nopPush) Push(r jsonrpc.Receiver) { s.r = r }
func (s *nopPush) Read(context.Context) (jsonrpc.Message, error) {
	panic("jsonrpc: Read called on a PushStream")
}
func (s *nopPush) Write(context.Context, jsonrpc.Message) error { return nil }
func (s *nopPush) Close() error                                 { return nil }

// An idle connection that has served a session's opening (a request and a
// notification, as initialize and notifications/initialized) keeps only
// the Conn itself: its tables and channels are released or never made.
func TestIdlePushConnHeapStaysWithinBudget(t *testing.T) {
	const n = 1000
	conns := make([]*jsonrpc.Conn, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range conns {
		s := &nopPush{}
		conns[i] = jsonrpc.NewConn(s, jsonrpc.ConnOptions{Logger: quiet, Handler: echoHandler})
		s.r.Serve(request(1, "initialize", ""))
		s.r.Receive(&jsonrpc.Request{Method: "notifications/initialized"}, nil)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perConn := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("an idle connection holds %d bytes of heap in %d objects", perConn, (int64(after.HeapObjects)-int64(before.HeapObjects))/n)
	if perConn > idleConnBudget {
		t.Errorf("an idle connection holds %d bytes of heap; the budget is %d", perConn, idleConnBudget)
	}
	for _, c := range conns {
		c.Close()
	}
}
