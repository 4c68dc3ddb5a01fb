package streamable

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/sse"
)

func TestInitializeMintsVisibleASCIISessionID(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	a := initSession(t, url, mcp.Version20251125)
	b := initSession(t, url, mcp.Version20251125)
	if a == b {
		t.Fatalf("two sessions got the same ID %q", a)
	}
	for _, id := range []string{a, b} {
		if len(id) < 22 {
			t.Errorf("session ID %q is shorter than 128 bits of base64", id)
		}
		for _, c := range []byte(id) {
			if c < 0x21 || c > 0x7e {
				t.Errorf("session ID %q has byte 0x%02x outside visible ASCII", id, c)
			}
		}
	}
}

func TestInitializeErrorEndsSession(t *testing.T) {
	h, url := serve(t, newFixture(t), nil)
	resp := do(t, "POST", url, legacyHeaders(""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"refuse"}}`)
	wantRefusal(t, h, resp, jsonrpc.CodeInvalidParams)
}

func TestRequestWithoutSessionIDIs400(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	wantError(t, do(t, "POST", url, legacyHeaders(""), callBody("7", "echo", "x")), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
}

func TestUnknownSessionIs404SessionNotFound(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	r := wantError(t, do(t, "POST", url, legacyHeaders("no-such-session"), callBody("7", "echo", "x")), http.StatusNotFound, CodeSessionNotFound)
	if r.Error.Message != "Session not found" || r.ID.Raw() != "7" {
		t.Errorf("got %q for id %s, want \"Session not found\" for id 7", r.Error.Message, r.ID)
	}
	wantError(t, do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": "nope"}, ""), http.StatusNotFound, CodeSessionNotFound)
	wantError(t, do(t, "DELETE", url, hdr{"Mcp-Session-Id": "nope"}, ""), http.StatusNotFound, CodeSessionNotFound)
}

func TestASessionAnswersOnlyThePrincipalThatStartedIt(t *testing.T) {
	f := newFixture(t)
	h := NewHandler(f, nil)
	// Authentication as the auth middleware records it, by X-User.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get("X-User"); u != "" {
			r = r.WithContext(auth.ContextWithTokenInfo(r.Context(), &auth.TokenInfo{Issuer: "https://as.example", Subject: u}))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		ts.Close()
	})
	as := func(user string, h hdr) hdr {
		if user != "" {
			h["X-User"] = user
		}
		return h
	}
	resp := do(t, "POST", ts.URL, as("alice", legacyHeaders("")), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	wantResponse(t, resp)
	sid := resp.Header.Get("Mcp-Session-Id")
	for _, user := range []string{"bob", ""} {
		wantError(t, do(t, "POST", ts.URL, as(user, legacyHeaders(sid)), callBody("2", "echo", "x")), http.StatusNotFound, CodeSessionNotFound)
		wantError(t, do(t, "GET", ts.URL, as(user, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid}), ""), http.StatusNotFound, CodeSessionNotFound)
		wantError(t, do(t, "DELETE", ts.URL, as(user, hdr{"Mcp-Session-Id": sid}), ""), http.StatusNotFound, CodeSessionNotFound)
	}
	if r := wantResponse(t, do(t, "POST", ts.URL, as("alice", legacyHeaders(sid)), callBody("3", "echo", "mine"))); r.Error != nil {
		t.Errorf("Alice's call in her session: %v", r.Error)
	}
	wantStatus(t, do(t, "DELETE", ts.URL, as("alice", hdr{"Mcp-Session-Id": sid}), ""), http.StatusNoContent)
	f.mu.Lock()
	n := len(f.infos)
	info := f.infos[0]
	f.mu.Unlock()
	if n != 1 || info.ID != sid || info.Principal != "https://as.example#sub:alice" {
		t.Errorf("the server was told %+v (of %d sessions), want session %s of alice", info, n, sid)
	}
}

func TestDeleteEndsSession(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	sid := initSession(t, url, mcp.Version20251125)
	wantStatus(t, do(t, "DELETE", url, hdr{"Mcp-Session-Id": sid}, ""), http.StatusNoContent)
	wantError(t, do(t, "POST", url, legacyHeaders(sid), callBody("2", "echo", "x")), http.StatusNotFound, CodeSessionNotFound)
	// The server's connection saw the session end.
	f.mu.Lock()
	conn := f.conns[0]
	f.mu.Unlock()
	select {
	case <-conn.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the server's connection did not end after DELETE")
	}
}

func TestPlainJSONWhenNothingComesBeforeTheResponse(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20251125)
	r := wantResponse(t, do(t, "POST", url, legacyHeaders(sid), callBody(`"a"`, "echo", "hello")))
	if r.ID.Raw() != `"a"` || !bytes.Contains(r.Result, []byte(`"hello"`)) {
		t.Fatalf("got %s %s, want id \"a\" echoing hello", r.ID, r.Result)
	}
}

func TestSSEWhenProgressComesFirst(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20251125)
	resp := do(t, "POST", url, legacyHeaders(sid), callBody("5", "progress", ""))
	wantStatus(t, resp, http.StatusOK)
	if resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Error("an SSE response lacks X-Accel-Buffering: no")
	}
	evs := events(t, resp)
	if len(evs) != 4 {
		t.Fatalf("got %d events, want priming, 2 progress, response: %+v", len(evs), evs)
	}
	if evs[0].ID == "" || len(evs[0].Data) != 0 || evs[0].Retry != int(DefaultRetryInterval.Milliseconds()) {
		t.Errorf("first event %+v, want a priming event: an ID, empty data and retry", evs[0])
	}
	seen := map[string]bool{}
	for i, ev := range evs {
		if ev.ID == "" || seen[ev.ID] {
			t.Errorf("event %d has ID %q; every event needs a distinct ID", i, ev.ID)
		}
		seen[ev.ID] = true
	}
	for _, ev := range evs[1:3] {
		if n, ok := message(t, ev).(*jsonrpc.Request); !ok || n.Method != "notifications/progress" {
			t.Errorf("event %q is %s, want a progress notification", ev.ID, ev.Data)
		}
	}
	if r, ok := message(t, evs[3]).(*jsonrpc.Response); !ok || r.ID.Raw() != "5" {
		t.Errorf("last event is %s, want the response to 5", evs[3].Data)
	}
}

func TestNoPrimingEventBefore20251125(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20250618)
	h := legacyHeaders(sid)
	h["Mcp-Protocol-Version"] = mcp.Version20250618
	evs := events(t, do(t, "POST", url, h, callBody("5", "progress", "")))
	if len(evs) != 3 {
		t.Fatalf("got %d events, want 2 progress and the response (no priming event for 2025-06-18): %+v", len(evs), evs)
	}
	if len(evs[0].Data) == 0 {
		t.Errorf("a 2025-06-18 stream starts with an empty event %+v", evs[0])
	}
}

func TestNotificationsAndResponsesGet202(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20251125)
	wantStatus(t, do(t, "POST", url, legacyHeaders(sid), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`), http.StatusAccepted)
	wantStatus(t, do(t, "POST", url, legacyHeaders(sid), `{"jsonrpc":"2.0","id":99,"result":{}}`), http.StatusAccepted)
}

func TestServerRequestGoesOnThePOSTStream(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20251125)
	resp := do(t, "POST", url, legacyHeaders(sid), callBody("1", "ask", ""))
	wantStatus(t, resp, http.StatusOK)
	r := sse.NewReader(resp.Body, 1<<20)
	req := nextSamplingRequest(t, r)
	answer := `{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"result":{"model":"m"}}`
	wantStatus(t, do(t, "POST", url, legacyHeaders(sid), answer), http.StatusAccepted)
	final, ok := message(t, nextEvent(t, r)).(*jsonrpc.Response)
	if !ok || final.ID.Raw() != "1" || !bytes.Contains(final.Result, []byte(`model`)) {
		t.Fatalf("got %v, want the tool result carrying the client's answer", final)
	}
}

// nextSamplingRequest reads the server's sampling/createMessage request
// from a POST stream, after its priming event.
func nextSamplingRequest(t *testing.T, r *sse.Reader) *jsonrpc.Request {
	t.Helper()
	ev := nextEvent(t, r)
	if len(ev.Data) == 0 {
		ev = nextEvent(t, r) // after the priming event
	}
	req, ok := message(t, ev).(*jsonrpc.Request)
	if !ok || req.Method != "sampling/createMessage" || req.IsNotification() {
		t.Fatalf("got %s, want the server's sampling/createMessage request", ev.Data)
	}
	return req
}

// A client's malformed answer to a server request (a response with both
// "result" and "error") is refused with 400, and fails the server's call it
// names, as it does over stdio and inside a batch: the request waiting on
// that call is answered rather than left waiting forever.
func TestInvalidAnswerToAServerRequestFailsItsCall(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(mustRequest(t, "POST", url, legacyHeaders(sid), callBody("1", "ask", "")).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	wantStatus(t, resp, http.StatusOK)
	r := sse.NewReader(resp.Body, 1<<20)
	req := nextSamplingRequest(t, r)
	bad := `{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"result":{},"error":{"code":1,"message":"x"}}`
	if e := wantError(t, do(t, "POST", url, legacyHeaders(sid), bad), http.StatusBadRequest, jsonrpc.CodeInvalidRequest); !e.ID.IsNull() {
		t.Errorf("the refusal of the invalid answer has id %s, want null: it answers no request", e.ID.Raw())
	}
	ev, err := r.Next()
	if err != nil {
		t.Fatalf("the tools/call waiting on the server's call was never answered after the client's invalid response: %v", err)
	}
	final, ok := message(t, ev).(*jsonrpc.Response)
	if !ok || final.ID.Raw() != "1" {
		t.Fatalf("got %s, want the answer to tools/call 1", ev.Data)
	}
}

func TestGETStreamCarriesServerInitiatedMessages(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	sid := initSession(t, url, mcp.Version20251125)
	get := do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": mcp.Version20251125}, "")
	wantStatus(t, get, http.StatusOK)
	r := sse.NewReader(get.Body, 1<<20)
	prime := nextEvent(t, r)
	if len(prime.Data) != 0 || !strings.HasPrefix(prime.ID, "0_") {
		t.Fatalf("the GET stream starts with %+v, want a priming event of stream 0", prime)
	}
	// Only one GET stream per session.
	wantError(t, do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid}, ""), http.StatusConflict, codeTransport)

	f.broadcast("notifications/tools/list_changed")
	ev := nextEvent(t, r)
	if n, ok := message(t, ev).(*jsonrpc.Request); !ok || n.Method != "notifications/tools/list_changed" {
		t.Fatalf("the GET stream carried %s, want the broadcast", ev.Data)
	}
}

// A request from the server outside any request's handling, to a session
// whose client has no GET stream open, fails at once with ErrNoStream
// rather than waiting for an answer that cannot come; a notification is
// dropped without an error.
func TestServerRequestWithoutAGETStreamFails(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	initSession(t, url, mcp.Version20251125)
	f.mu.Lock()
	conn := f.conns[0]
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := conn.Call(ctx, "roots/list", map[string]any{}, nil)
	if !errors.Is(err, ErrNoStream) {
		t.Errorf("a request with no GET stream open returned %v, want ErrNoStream", err)
	}
	if err := conn.Notify(ctx, "notifications/tools/list_changed", map[string]any{}); err != nil {
		t.Errorf("a notification with no GET stream open returned %v, want it dropped", err)
	}
}

func TestGETNeedsEventStreamAccept(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20251125)
	wantError(t, do(t, "GET", url, hdr{"Accept": "application/json", "Mcp-Session-Id": sid}, ""), http.StatusNotAcceptable, codeTransport)
}

func TestResumeAfterTheServerClosesTheStream(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20251125)
	evs := events(t, do(t, "POST", url, legacyHeaders(sid), callBody("3", "reconnect", "")))
	if len(evs) == 0 || len(evs[len(evs)-1].Data) != 0 {
		t.Fatalf("the closed stream carried %+v, want only priming events", evs)
	}
	last := evs[len(evs)-1].ID
	get := do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": last}, "")
	wantStatus(t, get, http.StatusOK)
	rest := events(t, get)
	if len(rest) != 2 {
		t.Fatalf("resuming after %s gave %d events, want the progress and the response: %+v", last, len(rest), rest)
	}
	if n, ok := message(t, rest[0]).(*jsonrpc.Request); !ok || n.Method != "notifications/progress" {
		t.Errorf("first resumed event %s, want the progress notification", rest[0].Data)
	}
	if r, ok := message(t, rest[1]).(*jsonrpc.Response); !ok || r.ID.Raw() != "3" || !bytes.Contains(r.Result, []byte("after reconnect")) {
		t.Errorf("second resumed event %s, want the tool's result", rest[1].Data)
	}
	// The stream has completed: resuming again replays from the store.
	again := events(t, do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": rest[0].ID}, ""))
	if len(again) != 1 || again[0].ID != rest[1].ID {
		t.Errorf("resuming the completed stream after %s gave %+v, want the response event %s only", rest[0].ID, again, rest[1].ID)
	}
	wantError(t, do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": "99_1"}, ""), http.StatusBadRequest, codeTransport)
}

func TestAConnectionReleasedBeforeItWaitsIsLetGo(t *testing.T) {
	h := NewHandler(newFixture(t), nil)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	s, err := h.sessions.create("", "address 192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	st := s.openGet()
	w := httptest.NewRecorder()
	if _, err := st.attach(w, false, 0); err != nil {
		t.Fatal(err)
	}
	// The server releases the connection between attach and wait, as it
	// may when it ends a stream the moment a client connects.
	if !st.release() {
		t.Fatal("release found no connection")
	}
	waited := make(chan struct{})
	go func() {
		st.wait(context.Background(), w)
		close(waited)
	}()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("the released connection's handler kept waiting: its client never resumes")
	}
}

func TestProtocolVersionHeaderMayNameAnotherSupportedLegacyVersion(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	sid := initSession(t, url, mcp.Version20251125)
	h := legacyHeaders(sid)
	// A supported version other than the negotiated one is accepted (the
	// session keeps its own), as is an absent header.
	for _, v := range []string{mcp.Version20250618, mcp.Version20250326, mcp.Version20251125, ""} {
		h["Mcp-Protocol-Version"] = v
		if r := wantResponse(t, do(t, "POST", url, h, callBody("1", "echo", "x"))); r.Error != nil {
			t.Errorf("MCP-Protocol-Version %q: %v, want the answer", v, r.Error)
		}
	}
	get := do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": mcp.Version20250618}, "")
	wantStatus(t, get, http.StatusOK)
	get.Body.Close()
	// An invalid or unsupported version is 400, and so is a modern one,
	// whose era has no sessions.
	for _, v := range []string{"1999-01-01", "latest", mcp.Version20260728} {
		h["Mcp-Protocol-Version"] = v
		r := wantError(t, do(t, "POST", url, h, callBody("1", "echo", "x")), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
		if !strings.Contains(r.Error.Message, mcp.Version20251125) {
			t.Errorf("MCP-Protocol-Version %q: %q does not name the session's version", v, r.Error.Message)
		}
	}
}

func TestProtocolVersionHeaderDoesNotChangeTheSessionsVersion(t *testing.T) {
	// The session negotiated 2025-11-25, where batches do not exist: a
	// header naming 2025-03-26, which has them, does not bring them back.
	_, url := serve(t, newFixture(t), nil)
	h := legacyHeaders(initSession(t, url, mcp.Version20251125))
	h["Mcp-Protocol-Version"] = mcp.Version20250326
	batch := "[" + callBody("1", "echo", "a") + "," + callBody("2", "echo", "b") + "]"
	wantError(t, do(t, "POST", url, h, batch), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
}

func TestBatchOnlyIn20250326(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	old := initSession(t, url, mcp.Version20250326)
	h := legacyHeaders(old)
	h["Mcp-Protocol-Version"] = mcp.Version20250326
	batch := "[" + callBody("1", "echo", "a") + "," + callBody("2", "echo", "b") + `,{"jsonrpc":"2.0","method":"notifications/x"}]`
	resp := do(t, "POST", url, h, batch)
	wantStatus(t, resp, http.StatusOK)
	msg, err := jsonrpc.DecodeMessage(readAll(t, resp))
	if err != nil {
		t.Fatal(err)
	}
	b, ok := msg.(jsonrpc.Batch)
	if !ok || len(b) != 2 {
		t.Fatalf("a batch of two requests was answered with %#v, want a batch of two responses", msg)
	}
	newer := initSession(t, url, mcp.Version20251125)
	wantError(t, do(t, "POST", url, legacyHeaders(newer), batch), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
}

func TestCancelledRequestEndsItsStream(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	sid := initSession(t, url, mcp.Version20251125)
	done := make(chan *http.Response)
	go func() {
		resp, err := http.DefaultClient.Do(mustRequest(t, "POST", url, legacyHeaders(sid), callBody("9", "block", "")))
		if err != nil {
			t.Error(err)
			close(done)
			return
		}
		done <- resp
	}()
	<-f.started
	wantStatus(t, do(t, "POST", url, legacyHeaders(sid), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`), http.StatusAccepted)
	resp := <-done
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	wantStatus(t, resp, http.StatusNoContent)
	if cause := <-f.ended; cause == nil {
		t.Error("the cancelled tool was not cancelled")
	}
}

func TestDuplicateRequestIDInFlightIs400(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	sid := initSession(t, url, mcp.Version20251125)
	go func() {
		resp, err := http.DefaultClient.Do(mustRequest(t, "POST", url, legacyHeaders(sid), callBody("4", "block", "")))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-f.started
	wantError(t, do(t, "POST", url, legacyHeaders(sid), callBody("4", "echo", "x")), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
	close(f.release)
	<-f.ended
}

// mustRequest builds a request with headers.
func mustRequest(t *testing.T, method, url string, h hdr, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	return req
}
