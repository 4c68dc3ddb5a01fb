package server

import (
	"bufio"
	"context"
	stdjson "encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/sessions"
	"github.com/weftmcp/weft/tasks"
	"github.com/weftmcp/weft/transport/streamable"
)

// A cluster of Handlers that route their shared sessions' messages
// (HandlerOptions.Messages and Bus), over real HTTP: a client sends each
// request to another instance, and its GET stream is on yet another.

// routedCluster is three routing instances on shared memory stores.
type routedCluster struct {
	a, b, c *instance
	store   *sessions.MemoryStore
	log     *sessions.MemoryMessageLog
}

func startRoutedCluster(t *testing.T) *routedCluster {
	t.Helper()
	ss, log := sessions.NewMemoryStore(), sessions.NewMemoryMessageLog()
	ts, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	opts := &streamable.HandlerOptions{Sessions: ss, Messages: log, Bus: bus}
	return &routedCluster{a: startInstanceWith(t, opts, ts, bus), b: startInstanceWith(t, opts, ts, bus), c: startInstanceWith(t, opts, ts, bus),
		store: ss, log: log}
}

// sseEvent is one event of an SSE stream.
type sseEvent struct {
	id   string
	data string
}

// openGet opens the session's GET stream on url (resuming after lastID
// when it is not empty) and returns its events with data.
func openGet(t *testing.T, url string, hdr map[string]string, lastID string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("GET %s: %v %v, want 200", url, resp, err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	out := make(chan sseEvent, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id:"):
				ev.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
			case strings.HasPrefix(line, "data:"):
				ev.data += strings.TrimSpace(strings.TrimPrefix(line, "data:"))
			case line == "":
				if ev.data != "" {
					out <- ev
				}
				ev = sseEvent{}
			}
		}
	}()
	return out
}

// nextEvent waits for the next event with data of a GET stream.
func nextEvent(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the GET stream ended")
		}
		return ev
	case <-time.After(waitFor):
		t.Fatal("no event on the GET stream")
		return sseEvent{}
	}
}

// answerElicitation POSTs the client's answer to the elicitation request
// msg to url.
func answerElicitation(t *testing.T, url string, hdr map[string]string, msg []byte, name string) {
	t.Helper()
	id := member(t, msg, "id")
	resp := post(t, url, `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"accept","content":{"name":"`+name+`"}}}`, hdr)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POSTing the answer to %s: %s, want 202", id, resp.Status)
	}
}

func TestRoutedSessions_AQuestionOnTheRequestStreamIsAnsweredElsewhere(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr := initializeOn(t, cl.a.url)
	post(t, cl.b.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	call := messages(t, post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`, hdr))
	q := nextMessage(t, call)
	if member(t, q, "method") != `"elicitation/create"` || !strings.HasPrefix(member(t, q, "id"), `"`) {
		t.Fatalf("the call's stream on A carried %s, want elicitation/create with an instance's ID", q)
	}
	answerElicitation(t, cl.c.url, hdr, q, "Ada")
	if res := nextMessage(t, call); !strings.Contains(string(res), "Hello, Ada!") {
		t.Fatalf("tools/call answered %s after the answer went through C, want Hello, Ada!", res)
	}
}

// Sampling and roots, the server's other requests to the client, cross
// instances as elicitation does: a handler on A asks, the client answers
// each question through another instance, and the handler goes on.
func TestRoutedSessions_SamplingAndRootsAreAnsweredElsewhere(t *testing.T) {
	cl := startRoutedCluster(t)
	for _, in := range []*instance{cl.a, cl.b, cl.c} {
		AddTool(in.srv, &mcp.Tool{Name: "sample_then_roots", Description: "Asks the model, then lists the roots."},
			func(ctx context.Context, r *Request, _ struct{}) (string, error) {
				res, err := r.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []mcp.SamplingMessage{
					{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Capital of France?"}}}}})
				if err != nil {
					return "", err
				}
				roots, err := r.ListRoots(ctx)
				if err != nil {
					return "", err
				}
				return text(res) + " in " + roots.Roots[0].URI, nil
			})
	}
	init := post(t, cl.a.url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	nextMessage(t, messages(t, init))
	hdr := map[string]string{"Mcp-Session-Id": init.Header.Get("Mcp-Session-Id"), "MCP-Protocol-Version": mcp.Version20251125}
	post(t, cl.b.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	call := messages(t, post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample_then_roots","arguments":{}}}`, hdr))
	for _, step := range []struct{ method, answer, via string }{
		{"sampling/createMessage", `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}`, cl.c.url},
		{"roots/list", `{"roots":[{"uri":"file:///work"}]}`, cl.b.url},
	} {
		q := nextMessage(t, call)
		if member(t, q, "method") != `"`+step.method+`"` {
			t.Fatalf("the call's stream on A carried %s, want %s", q, step.method)
		}
		if resp := post(t, step.via, `{"jsonrpc":"2.0","id":`+member(t, q, "id")+`,"result":`+step.answer+`}`, hdr); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POSTing the answer to %s elsewhere: %s, want 202", step.method, resp.Status)
		}
	}
	if res := nextMessage(t, call); !strings.Contains(string(res), "Paris in file:///work") {
		t.Fatalf("tools/call answered %s, want the sampled text and the root, both answered through other instances", res)
	}
}

func TestRoutedSessions_ATaskQuestionReachesTheGetStreamOnAThirdInstance(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr := initializeOn(t, cl.a.url)
	post(t, cl.a.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	get := openGet(t, cl.c.url, hdr, "")
	created := nextMessage(t, messages(t, post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{},"task":{}}}`, hdr)))
	id := strings.Trim(member(t, created, "result", "task", "taskId"), `"`)
	awaitStatus(t, cl.a.rt, hdr["Mcp-Session-Id"], id, tasks.StatusInputRequired)
	// The poll that finds the task asking, on B, sends its question on the
	// session: it reaches the GET stream on C.
	polled := nextMessage(t, messages(t, post(t, cl.b.url, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+id+`"}}`, hdr)))
	if member(t, polled, "result", "status") != `"input_required"` {
		t.Fatalf("tasks/get on B: %s", polled)
	}
	ev := nextEvent(t, get)
	for member(t, []byte(ev.data), "method") == `"notifications/tasks/status"` {
		ev = nextEvent(t, get)
	}
	if member(t, []byte(ev.data), "method") != `"elicitation/create"` || !strings.HasPrefix(ev.id, "0_") {
		t.Fatalf("the GET stream on C carried %+v, want the task's elicitation/create as event 0_n", ev)
	}
	// Answered through A, a fourth request.
	answerElicitation(t, cl.a.url, hdr, []byte(ev.data), "Grace")
	awaitStatus(t, cl.a.rt, hdr["Mcp-Session-Id"], id, tasks.StatusCompleted)
	res := nextMessage(t, messages(t, post(t, cl.c.url, `{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"`+id+`"}}`, hdr)))
	if !strings.Contains(string(res), "Hello, Grace!") {
		t.Fatalf("tasks/result: %s, want Hello, Grace!", res)
	}
}

func TestRoutedSessions_CancelFromAnotherInstanceReachesTheHandler(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr := initializeOn(t, cl.a.url)
	post(t, cl.b.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	post(t, cl.c.url, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, hdr) // C holds the session before the call starts
	// The call's response comes once the handler ends: it is awaited apart.
	call := make(chan *http.Response, 1)
	go func() {
		call <- post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hold","arguments":{}}}`, hdr)
	}()
	cl.a.gate.awaitStart(t)
	if r := post(t, cl.b.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"changed my mind"}}`, hdr); r.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled on B: %s, want 202", r.Status)
	}
	if err := cl.a.gate.awaitEnd(t); err == nil {
		t.Fatal("the handler on A was let go, want its context cancelled by the cancel POSTed to B")
	}
	var resp *http.Response
	select {
	case resp = <-call:
	case <-time.After(waitFor):
		t.Fatal("the cancelled call's response did not end")
	}
	if got := nextMessageOrEnd(t, messages(t, resp)); got != nil {
		t.Fatalf("the cancelled call's stream carried %s, want nothing", got)
	}
}

func TestRoutedSessions_ResourceUpdatedAndResumptionAcrossInstances(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr := initializeOn(t, cl.a.url)
	post(t, cl.a.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	if msg := nextMessage(t, messages(t, post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://static"}}`, hdr))); member(t, msg, "result") != "{}" {
		t.Fatalf("resources/subscribe on A: %s", msg)
	}
	post(t, cl.c.url, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, hdr) // C reads the subscription with the session
	get := openGet(t, cl.b.url, hdr, "")
	if err := cl.c.srv.ResourceUpdated(context.Background(), "test://static"); err != nil {
		t.Fatal(err)
	}
	first := nextEvent(t, get)
	if member(t, []byte(first.data), "method") != `"notifications/resources/updated"` {
		t.Fatalf("B's GET stream carried %+v, want resources/updated sent by C for the subscription made on A", first)
	}
	// B dies; what C sends meanwhile waits in the store, and the client
	// resumes on C with the last event ID it saw.
	cl.b.hs.CloseClientConnections()
	cl.b.stop(t)
	if err := cl.c.srv.ResourceUpdated(context.Background(), "test://static"); err != nil {
		t.Fatal(err)
	}
	resumed := openGet(t, cl.c.url, hdr, first.id)
	ev := nextEvent(t, resumed)
	if member(t, []byte(ev.data), "method") != `"notifications/resources/updated"` || ev.id == first.id {
		t.Fatalf("the stream resumed on C after %s carried %+v, want the resources/updated sent while B was gone", first.id, ev)
	}
}

// nextMessageOrEnd returns the next message of a response, or nil when it
// ends without one.
func nextMessageOrEnd(t *testing.T, ch <-chan stdjson.RawMessage) stdjson.RawMessage {
	t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(waitFor):
		t.Fatal("the response neither carried a message nor ended")
		return nil
	}
}

func TestRoutedSessions_ARequestStreamResumesOnlyWhereItWasServed(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr := initializeOn(t, cl.a.url)
	post(t, cl.a.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	post(t, cl.b.url, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, hdr) // B holds the session and numbers its own streams
	resp := post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`, hdr)
	sc := bufio.NewScanner(resp.Body)
	var id string
	for id == "" && sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "id:"); ok && !strings.HasPrefix(strings.TrimSpace(v), "0_") {
			id = strings.TrimSpace(v)
		}
	}
	if id == "" {
		t.Fatal("the call's stream on A carried no event ID")
	}
	req, _ := http.NewRequest(http.MethodGet, cl.b.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", id)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	got, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got.Body.Close()
	if got.StatusCode != http.StatusBadRequest {
		t.Fatalf("resuming A's request stream (%s) on B: %s, want 400", id, got.Status)
	}
}

// When the handler that asked stops waiting (its call was cancelled
// through another instance), the server's notifications/cancelled names
// the question by the ID the client saw, and reaches the GET stream.
func TestRoutedSessions_TheServersCancelNamesTheQuestionAsTheClientSawIt(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr := initializeOn(t, cl.a.url)
	post(t, cl.a.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	get := openGet(t, cl.c.url, hdr, "")
	call := messages(t, post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`, hdr))
	q := nextMessage(t, call)
	if member(t, q, "method") != `"elicitation/create"` {
		t.Fatalf("the call's stream carried %s, want elicitation/create", q)
	}
	if r := post(t, cl.b.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, hdr); r.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled on B: %s, want 202", r.Status)
	}
	ev := nextEvent(t, get)
	if member(t, []byte(ev.data), "method") != `"notifications/cancelled"` || member(t, []byte(ev.data), "params", "requestId") != member(t, q, "id") {
		t.Fatalf("the GET stream on C carried %+v, want notifications/cancelled naming %s", ev, member(t, q, "id"))
	}
}

// With no GET stream open on any instance, a task's question is not left
// in the store for a stream that may never come: it goes out on the
// tasks/result stream, and the answer POSTed elsewhere reaches it.
func TestRoutedSessions_WithoutAGetStreamATaskAsksOnTasksResult(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr := initializeOn(t, cl.a.url)
	post(t, cl.a.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	created := nextMessage(t, messages(t, post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{},"task":{}}}`, hdr)))
	id := strings.Trim(member(t, created, "result", "task", "taskId"), `"`)
	awaitStatus(t, cl.a.rt, hdr["Mcp-Session-Id"], id, tasks.StatusInputRequired)
	if got := nextMessage(t, messages(t, post(t, cl.b.url, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"`+id+`"}}`, hdr))); member(t, got, "result", "status") != `"input_required"` {
		t.Fatalf("tasks/get on B: %s", got)
	}
	result := messages(t, post(t, cl.c.url, `{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"`+id+`"}}`, hdr))
	q := nextMessage(t, result)
	for member(t, q, "method") == `"notifications/tasks/status"` {
		q = nextMessage(t, result)
	}
	if member(t, q, "method") != `"elicitation/create"` {
		t.Fatalf("tasks/result on C carried %s, want the task's question", q)
	}
	answerElicitation(t, cl.b.url, hdr, q, "Lin")
	for {
		res := nextMessage(t, result)
		if member(t, res, "id") == "4" {
			if !strings.Contains(string(res), "Hello, Lin!") {
				t.Fatalf("tasks/result answered %s, want Hello, Lin!", res)
			}
			return
		}
	}
}

// countingLog is a real message log that counts the calls made to it.
type countingLog struct {
	sessions.MessageLog
	calls atomic.Int64
}

func (c *countingLog) Append(ctx context.Context, session string, box sessions.Box, data []byte) (uint64, error) {
	c.calls.Add(1)
	return c.MessageLog.Append(ctx, session, box, data)
}

func (c *countingLog) Read(ctx context.Context, session string, box sessions.Box, after uint64) ([]sessions.Message, error) {
	c.calls.Add(1)
	return c.MessageLog.Read(ctx, session, box, after)
}

func (c *countingLog) Last(ctx context.Context, session string, box sessions.Box) (uint64, error) {
	c.calls.Add(1)
	return c.MessageLog.Last(ctx, session, box)
}

func (c *countingLog) HasReader(ctx context.Context, session string, now time.Time) (bool, error) {
	c.calls.Add(1)
	return c.MessageLog.HasReader(ctx, session, now)
}

// Routing costs a request of a known session nothing more: one round trip
// to the session store, none to the message log, when the call sends the
// client nothing but its response.
func TestRoutedSessions_ACallOfAKnownSessionCostsOneRoundTrip(t *testing.T) {
	store := &countingStore{Store: sessions.NewMemoryStore()}
	log := &countingLog{MessageLog: sessions.NewMemoryMessageLog()}
	ts, bus := tasks.NewMemoryStore(), tasks.NewMemoryBus()
	opts := &streamable.HandlerOptions{Sessions: store, Messages: log, Bus: bus}
	a, b := startInstanceWith(t, opts, ts, bus), startInstanceWith(t, opts, ts, bus)
	hdr := initializeOn(t, a.url)
	post(t, b.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr) // B takes the session over
	beforeStore, beforeLog := store.calls.Load(), log.calls.Load()
	if res := nextMessage(t, messages(t, post(t, b.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`, hdr))); !strings.Contains(string(res), "Hello, Ada!") {
		t.Fatalf("tools/call answered %s", res)
	}
	if n, m := store.calls.Load()-beforeStore, log.calls.Load()-beforeLog; n != 1 || m != 0 {
		t.Fatalf("a tools/call of a known session made %d session-store and %d message-log calls, want 1 and 0", n, m)
	}
}

func TestRoutedSessions_ASecondGetStreamIsRefusedAndTheFirstStaysRecorded(t *testing.T) {
	cl := startRoutedCluster(t)
	hdr := initializeOn(t, cl.a.url)
	post(t, cl.a.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
	openGet(t, cl.b.url, hdr, "")
	req, _ := http.NewRequest(http.MethodGet, cl.b.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	second, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	second.Body.Close()
	if second.StatusCode != http.StatusConflict {
		t.Fatalf("a second GET stream on B: %s, want 409", second.Status)
	}
	if ok, err := cl.log.HasReader(context.Background(), hdr["Mcp-Session-Id"], time.Now()); err != nil || !ok {
		t.Fatalf("after the refused GET, HasReader = %v, %v; want the first stream still recorded", ok, err)
	}
}

// A client's malformed answer to the server's question (a response with
// both result and error) fails the question, whichever instance it is
// POSTed to, so the handler that asked does not wait for ever: the POST
// gets 400, and the call that asked is answered.
func TestRoutedSessions_AMalformedAnswerFailsTheQuestionWherever(t *testing.T) {
	for _, via := range []string{"the instance that asked", "another instance"} {
		t.Run(via, func(t *testing.T) {
			cl := startRoutedCluster(t)
			hdr := initializeOn(t, cl.a.url)
			post(t, cl.b.url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
			call := messages(t, post(t, cl.a.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`, hdr))
			q := nextMessage(t, call)
			if member(t, q, "method") != `"elicitation/create"` {
				t.Fatalf("the call's stream on A carried %s, want elicitation/create", q)
			}
			url := cl.a.url
			if via == "another instance" {
				url = cl.c.url
			}
			bad := `{"jsonrpc":"2.0","id":` + member(t, q, "id") + `,"result":{},"error":{"code":1,"message":"x"}}`
			if resp := post(t, url, bad, hdr); resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("POSTing a malformed answer: %s, want 400", resp.Status)
			}
			if res := nextMessage(t, call); member(t, res, "id") != "2" {
				t.Fatalf("the call's stream carried %s, want the answer to tools/call 2", res)
			}
		})
	}
}
