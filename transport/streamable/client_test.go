package streamable

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// peer is a jsonrpc.Conn over a Client, recording the notifications and
// answering the requests the server sends.
type peer struct {
	conn   *jsonrpc.Conn
	client *Client
	notes  chan *jsonrpc.Request
}

// dial connects a bare jsonrpc.Conn through a Client to url. Server
// requests get {"model":"m"}; notifications go to peer.notes.
func dial(t *testing.T, url string, opts *ClientOptions, connOpts jsonrpc.ConnOptions) *peer {
	t.Helper()
	p := &peer{client: NewClient(url, opts), notes: make(chan *jsonrpc.Request, 64)}
	connOpts.Handler = jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			p.notes <- req
			return nil, nil
		}
		return map[string]any{"model": "m"}, nil
	})
	p.conn = jsonrpc.NewConn(p.client, connOpts)
	t.Cleanup(func() { p.conn.Close() })
	return p
}

// initialize performs the legacy handshake at version v.
func (p *peer) initialize(t *testing.T, v string) {
	t.Helper()
	ctx := context.Background()
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := p.conn.Call(ctx, "initialize", map[string]any{"protocolVersion": v, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}}, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ProtocolVersion != v {
		t.Fatalf("negotiated %q, want %q", res.ProtocolVersion, v)
	}
	if err := p.conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
}

// callTool calls a tool and returns the text of its first content block.
func (p *peer) callTool(ctx context.Context, params map[string]any) (string, error) {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := p.conn.Call(ctx, "tools/call", params, &res); err != nil {
		return "", err
	}
	if len(res.Content) == 0 {
		return "", errors.New("the result has no content")
	}
	return res.Content[0].Text, nil
}

// modernMeta is the _meta of a modern request.
func modernMeta() map[string]any {
	return map[string]any{mcp.MetaProtocolVersion: mcp.Version20260728, mcp.MetaClientCapabilities: map[string]any{}}
}

// eventually waits up to five seconds for cond, checking every millisecond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// getAttached reports whether session sid has a client on its GET stream.
func getAttached(h *Handler, sid string) bool {
	s := h.sessions.lookup(sid)
	if s == nil {
		return false
	}
	st := s.stream(0)
	if st == nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.w != nil
}

func TestClientLegacyRoundTrips(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125)
	if p.client.SessionID() == "" {
		t.Fatal("the client did not keep the session ID")
	}
	ctx := context.Background()
	if text, err := p.callTool(ctx, map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}); err != nil || text != "hi" {
		t.Fatalf("echo: %q, %v", text, err)
	}
	if text, err := p.callTool(ctx, map[string]any{"name": "progress"}); err != nil || text != "done" {
		t.Fatalf("progress: %q, %v", text, err)
	}
	for i := 0; i < 2; i++ {
		if n := <-p.notes; n.Method != "notifications/progress" {
			t.Fatalf("got %s, want progress", n.Method)
		}
	}
	// The server asks the client on the POST stream; the client answers.
	if text, err := p.callTool(ctx, map[string]any{"name": "ask"}); err != nil || !strings.Contains(text, `"model":"m"`) {
		t.Fatalf("ask: %q, %v", text, err)
	}
}

func TestClientOpensGETStreamBeforeInitializedReturns(t *testing.T) {
	f := newFixture(t)
	h, url := serve(t, f, nil)
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125)
	// The server attaches the GET before it answers it, and the client
	// waits for that answer: no waiting here.
	if !getAttached(h, p.client.SessionID()) {
		t.Fatal("notifications/initialized returned before the GET stream was open")
	}
	f.broadcast("notifications/tools/list_changed")
	if n := <-p.notes; n.Method != "notifications/tools/list_changed" {
		t.Fatalf("got %s, want the broadcast", n.Method)
	}
}

func TestClientReopensGETStream(t *testing.T) {
	f := newFixture(t)
	h, url := serve(t, f, &HandlerOptions{RetryInterval: time.Millisecond})
	p := dial(t, url, &ClientOptions{ReconnectDelay: time.Millisecond}, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125)
	sid := p.client.SessionID()
	// The server drops the GET connection; messages sent meanwhile are
	// stored, and the client gets them when it resumes.
	if !h.sessions.lookup(sid).stream(0).release() {
		t.Fatal("no GET connection to release")
	}
	f.broadcast("notifications/resources/list_changed")
	if n := <-p.notes; n.Method != "notifications/resources/list_changed" {
		t.Fatalf("got %s after the GET stream was reopened, want the broadcast", n.Method)
	}
}

func TestClientResumesABrokenResponseStream(t *testing.T) {
	_, url := serve(t, newFixture(t), &HandlerOptions{RetryInterval: time.Millisecond})
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125)
	text, err := p.callTool(context.Background(), map[string]any{"name": "reconnect"})
	if err != nil || text != "after reconnect" {
		t.Fatalf("reconnect: %q, %v", text, err)
	}
	if n := <-p.notes; n.Method != "notifications/progress" {
		t.Fatalf("got %s, want the progress sent while the stream was closed", n.Method)
	}
}

func TestClientStartsANewSessionAfter404(t *testing.T) {
	h, url := serve(t, newFixture(t), nil)
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125)
	old := p.client.SessionID()
	h.sessions.end(h.sessions.lookup(old), ErrSessionEnded)
	text, err := p.callTool(context.Background(), map[string]any{"name": "echo", "arguments": map[string]any{"text": "again"}})
	if err != nil || text != "again" {
		t.Fatalf("the call after the session ended: %q, %v", text, err)
	}
	if sid := p.client.SessionID(); sid == "" || sid == old {
		t.Fatalf("session ID %q after renewal, want a new one (old %q)", sid, old)
	}
	if !getAttached(h, p.client.SessionID()) {
		t.Fatal("the call was sent again before the new session's GET stream was open")
	}
}

func TestClientRenewsTheSessionForANotification(t *testing.T) {
	h, url := serve(t, newFixture(t), nil)
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125)
	old := p.client.SessionID()
	h.sessions.end(h.sessions.lookup(old), ErrSessionEnded)
	if err := p.conn.Notify(context.Background(), "notifications/roots/list_changed", nil); err != nil {
		t.Fatalf("a notification after the session ended: %v", err)
	}
	if sid := p.client.SessionID(); sid == old || h.sessions.lookup(sid) == nil {
		t.Fatalf("session %q after renewal (old %q) is not live", sid, old)
	}
}

func TestClientReportsAFailedRenewal(t *testing.T) {
	f := newFixture(t)
	h, url := serve(t, f, &HandlerOptions{MaxSessions: 1})
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125)
	old := p.client.SessionID()
	h.sessions.end(h.sessions.lookup(old), ErrSessionEnded)
	initSession(t, url, mcp.Version20251125) // another client takes the only slot
	_, err := p.callTool(context.Background(), map[string]any{"name": "echo"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != CodeSessionNotFound {
		t.Fatalf("a call whose session could not be renewed gave %v, want CodeSessionNotFound", err)
	}
	err = p.conn.Notify(context.Background(), "notifications/roots/list_changed", nil)
	if status, ok := HTTPStatus(err); !ok || status != http.StatusNotFound {
		t.Fatalf("a notification whose session could not be renewed gave %v, want HTTP 404", err)
	}
}

func TestClientCloseDeletesTheSession(t *testing.T) {
	h, url := serve(t, newFixture(t), nil)
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125)
	sid := p.client.SessionID()
	if err := p.conn.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if h.sessions.lookup(sid) != nil {
		t.Fatal("the session survived the client's Close")
	}
	if _, err := p.client.Read(context.Background()); err == nil {
		t.Fatal("Read after Close succeeded")
	}
}

func TestClientHTTPErrorIsTheCallsError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	p := dial(t, srv.URL, nil, jsonrpc.ConnOptions{})
	err := p.conn.Call(context.Background(), "tools/list", map[string]any{"_meta": modernMeta()}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != CodeHTTPError {
		t.Fatalf("got %v, want a CodeHTTPError error", err)
	}
	if status, ok := HTTPStatus(err); !ok || status != http.StatusServiceUnavailable {
		t.Fatalf("HTTPStatus = %d, %v; want 503", status, ok)
	}
	if !strings.Contains(je.Message, "maintenance") {
		t.Errorf("message %q does not carry the body", je.Message)
	}
	err = p.conn.Notify(context.Background(), "notifications/x", nil)
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a refused notification gave %v, want an *HTTPError with 503", err)
	}
}

func TestClientDeliversTheServersJSONRPCError(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	meta := modernMeta()
	meta[mcp.MetaProtocolVersion] = "2099-01-01"
	err := p.conn.Call(context.Background(), "server/discover", map[string]any{"_meta": meta}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeUnsupportedProtocolVersion {
		t.Fatalf("got %v, want the server's -32022", err)
	}
	var data mcp.UnsupportedVersionData
	if json.Unmarshal(je.Data, &data) != nil || len(data.Supported) == 0 {
		t.Fatalf("the error's data %s lost the supported versions", je.Data)
	}
}

func TestClientSetsModernHeaders(t *testing.T) {
	f := newFixture(t)
	f.headers = make(chan http.Header, 4)
	_, url := serve(t, f, &HandlerOptions{ToolInputSchema: toolSchema})
	p := dial(t, url, &ClientOptions{ParamHeaders: func(tool string) []mcp.ParamHeader {
		if tool != "region" {
			return nil
		}
		b, err := mcp.ParamHeaders([]byte(regionSchema))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}}, jsonrpc.ConnOptions{})
	args := map[string]any{"region": "Zürich", "count": 3, "opts": map[string]any{"flag": true}, "query": "q"}
	text, err := p.callTool(context.Background(), map[string]any{"_meta": modernMeta(), "name": "region", "arguments": args})
	if err != nil || !strings.Contains(text, "Zürich") {
		t.Fatalf("region: %q, %v", text, err)
	}
	h := <-f.headers
	want := map[string]string{
		"Mcp-Protocol-Version": mcp.Version20260728,
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "region",
		"Mcp-Param-Region":     EncodeHeaderValue("Zürich"),
		"Mcp-Param-Count":      "3",
		"Mcp-Param-Flag":       "true",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if h.Get("Mcp-Session-Id") != "" {
		t.Error("a modern request carried Mcp-Session-Id")
	}
}

func TestClientLearnsParamHeadersFromToolsList(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, &HandlerOptions{ToolInputSchema: toolSchema})
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	ctx := context.Background()
	args := map[string]any{"region": "eu-west1", "count": 7}
	// Before tools/list the client does not know the bindings: the server
	// refuses the call for its missing headers.
	_, err := p.callTool(ctx, map[string]any{"_meta": modernMeta(), "name": "region", "arguments": args})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeHeaderMismatch {
		t.Fatalf("the call before tools/list gave %v, want -32020", err)
	}
	if err := p.conn.Call(ctx, "tools/list", map[string]any{"_meta": modernMeta()}, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if text, err := p.callTool(ctx, map[string]any{"_meta": modernMeta(), "name": "region", "arguments": args}); err != nil || !strings.Contains(text, "eu-west1") {
		t.Fatalf("the call after tools/list: %q, %v", text, err)
	}
}

func TestClientModernCancelClosesTheStream(t *testing.T) {
	f := newFixture(t)
	f.headers = make(chan http.Header, 8)
	_, url := serve(t, f, nil)
	var p *peer
	p = dial(t, url, nil, jsonrpc.ConnOptions{OnCallAbandoned: func(id jsonrpc.ID, method string, _ error) {
		p.conn.Notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": id, "_meta": modernMeta()})
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := p.callTool(ctx, map[string]any{"_meta": modernMeta(), "name": "block"})
		done <- err
	}()
	<-f.started
	<-f.headers
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v", err)
	}
	if cause := <-f.ended; cause == nil {
		t.Fatal("the server's request was not cancelled")
	}
	select {
	case h := <-f.headers:
		t.Fatalf("the client sent a %s POST; closing the stream is the modern cancel", h.Get("Mcp-Method"))
	default:
	}
}

func TestClientWaitsForNothingOnceClosed(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, nil)
	p := dial(t, url, nil, jsonrpc.ConnOptions{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := p.callTool(context.Background(), map[string]any{"_meta": modernMeta(), "name": "block"})
		if !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("a call cut by Close returned %v, want ErrClosed", err)
		}
	}()
	<-f.started
	p.conn.Close()
	wg.Wait()
	if cause := <-f.ended; cause == nil {
		t.Fatal("the server's request was not cancelled when the client closed")
	}
}

func TestClientPrepareRequestSeesEveryRequest(t *testing.T) {
	f := newFixture(t)
	h := NewHandler(f, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close) // cleanups run last first: the clients close, then the handler, then this
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	bare := dial(t, ts.URL, nil, jsonrpc.ConnOptions{})
	err := bare.conn.Call(context.Background(), "server/discover", map[string]any{"_meta": modernMeta()}, nil)
	if status, ok := HTTPStatus(err); !ok || status != http.StatusUnauthorized {
		t.Fatalf("without the hook: %v, want HTTP 401", err)
	}
	p := dial(t, ts.URL, &ClientOptions{PrepareRequest: func(r *http.Request) error {
		r.Header.Set("Authorization", "Bearer t0ken")
		return nil
	}}, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125) // POST, and the GET stream that follows
	if text, err := p.callTool(context.Background(), map[string]any{"name": "echo", "arguments": map[string]any{"text": "ok"}}); err != nil || text != "ok" {
		t.Fatalf("with the hook: %q, %v", text, err)
	}
	if !getAttached(h, p.client.SessionID()) {
		t.Fatal("the authorized GET stream is not open")
	}
}

func TestClientStopsOpeningGETWhenTheServerHasNone(t *testing.T) {
	f := newFixture(t)
	h := NewHandler(f, nil)
	var mu sync.Mutex
	gets := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			gets++
			mu.Unlock()
			http.Error(w, "no GET stream here", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Shutdown(context.Background()) })
	p := dial(t, ts.URL, &ClientOptions{ReconnectDelay: time.Millisecond}, jsonrpc.ConnOptions{})
	p.initialize(t, mcp.Version20251125) // returns once the GET was refused
	for i := 0; i < 5; i++ {
		if _, err := p.callTool(context.Background(), map[string]any{"name": "echo"}); err != nil {
			t.Fatal(err)
		}
	}
	p.conn.Close() // waits for the client's goroutines
	mu.Lock()
	defer mu.Unlock()
	if gets != 1 {
		t.Fatalf("the client sent %d GETs to a server answering 405, want 1", gets)
	}
}

// legacyMock is a hand-written legacy Streamable HTTP server, for the
// timing and ordering the real Handler does not let a test control. It
// answers initialize with session "s-1" at 2025-11-25, accepts
// notifications and DELETE, and hands GETs and tools/call POSTs to the
// test.
type legacyMock struct {
	get  func(w http.ResponseWriter, r *http.Request)
	call func(w http.ResponseWriter, r *http.Request, id jsontext.Value)
}

func (m *legacyMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		m.get(w, r)
		return
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var msg struct {
		ID     jsontext.Value `json:"id"`
		Method string         `json:"method"`
	}
	if err := json.UnmarshalRead(r.Body, &msg, json.RejectUnknownMembers(false)); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case msg.Method == mcp.MethodInitialize:
		w.Header().Set("Content-Type", mediaJSON)
		w.Header().Set(headerSessionID, "s-1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"mock","version":"1"}}}`,
			msg.ID, mcp.Version20251125)
	case len(msg.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == mcp.MethodToolsCall:
		m.call(w, r, msg.ID)
	default:
		http.Error(w, "the mock does not serve "+msg.Method, http.StatusBadRequest)
	}
}

// startSSE answers with the headers of an SSE stream and flushes them.
func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", mediaSSE)
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// writeEvent writes one raw SSE event (its lines, without the blank line
// that ends it) and flushes it.
func writeEvent(w http.ResponseWriter, lines string) {
	fmt.Fprintf(w, "%s\n\n", lines)
	w.(http.Flusher).Flush()
}

// within waits for ch, failing the test after a generous deadline.
func within[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting until %s", what)
		panic("unreachable")
	}
}

// handshake sends initialize, then notifications/initialized from another
// goroutine; the returned channel receives the notification's Write error.
func (p *peer) handshake(t *testing.T) <-chan error {
	t.Helper()
	if err := p.conn.Call(context.Background(), mcp.MethodInitialize, map[string]any{"protocolVersion": mcp.Version20251125,
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	initialized := make(chan error, 1)
	go func() { initialized <- p.conn.Notify(context.Background(), "notifications/initialized", nil) }()
	return initialized
}

func TestClientInitializedWaitsForTheServerToAnswerTheGET(t *testing.T) {
	gotGET, answerGET := make(chan struct{}), make(chan struct{})
	ts := httptest.NewServer(&legacyMock{get: func(w http.ResponseWriter, r *http.Request) {
		close(gotGET) // the stream is held open: one GET only
		select {
		case <-answerGET:
		case <-r.Context().Done():
			return
		}
		startSSE(w)
		<-r.Context().Done()
	}})
	t.Cleanup(ts.Close)
	p := dial(t, ts.URL, nil, jsonrpc.ConnOptions{})
	initialized := p.handshake(t)
	within(t, "the client sends the GET", gotGET)
	select {
	case err := <-initialized:
		t.Fatalf("notifications/initialized returned (%v) before the server answered the GET", err)
	default:
	}
	close(answerGET)
	if err := within(t, "notifications/initialized returns", initialized); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
}

func TestClientInitializedStopsWaitingForAGETTheServerHolds(t *testing.T) {
	ts := httptest.NewServer(&legacyMock{get: func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}})
	t.Cleanup(ts.Close)
	p := dial(t, ts.URL, nil, jsonrpc.ConnOptions{})
	p.client.getWait = 50 * time.Millisecond
	start := time.Now()
	if err := within(t, "notifications/initialized returns", p.handshake(t)); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	if waited := time.Since(start); waited < p.client.getWait {
		t.Fatalf("notifications/initialized returned after %v, before the %v wait for the GET's answer", waited, p.client.getWait)
	}
}

func TestClientResumesAClosedResponseStreamAfterTheServersRetry(t *testing.T) {
	const retry = 200 * time.Millisecond
	type resumption struct {
		lastEventID string
		after       time.Duration // since the POST stream closed
	}
	resumed := make(chan resumption, 1)
	var mu sync.Mutex
	var callID jsontext.Value
	var closedAt time.Time
	ts := httptest.NewServer(&legacyMock{
		get: func(w http.ResponseWriter, r *http.Request) {
			last := r.Header.Get(headerLastEventID)
			if last == "" {
				// The session's GET stream, with a much shorter retry
				// interval than the POST stream's: resuming the POST stream
				// must not use it.
				startSSE(w)
				writeEvent(w, "id: g-1\nretry: 1\ndata:")
				<-r.Context().Done()
				return
			}
			mu.Lock()
			resumed <- resumption{last, time.Since(closedAt)}
			id := callID
			mu.Unlock()
			startSSE(w)
			writeEvent(w, fmt.Sprintf(`id: p-3`+"\n"+`data: {"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"resumed"}]}}`, id))
		},
		call: func(w http.ResponseWriter, r *http.Request, id jsontext.Value) {
			startSSE(w)
			writeEvent(w, fmt.Sprintf("id: p-1\nretry: %d\ndata:", retry.Milliseconds()))
			writeEvent(w, `id: p-2`+"\n"+`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
			mu.Lock()
			callID, closedAt = id, time.Now()
			mu.Unlock()
			// Returning closes the stream before the response.
		},
	})
	t.Cleanup(ts.Close)
	// Were the client to ignore the server's retry interval, it would wait
	// an hour, and the call would hit its deadline.
	p := dial(t, ts.URL, &ClientOptions{ReconnectDelay: time.Hour}, jsonrpc.ConnOptions{})
	if err := within(t, "notifications/initialized returns", p.handshake(t)); err != nil {
		t.Fatalf("notifications/initialized: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	text, err := p.callTool(ctx, map[string]any{"name": "reconnect"})
	if err != nil || text != "resumed" {
		t.Fatalf("the call whose stream closed: %q, %v", text, err)
	}
	r := <-resumed
	if r.lastEventID != "p-2" {
		t.Errorf("the client resumed with Last-Event-ID %q, want p-2, the last event of the closed stream", r.lastEventID)
	}
	if r.after < retry {
		t.Errorf("the client resumed %v after the stream closed, before the server's retry interval of %v", r.after, retry)
	}
	if n := within(t, "the progress sent before the stream closed arrives", p.notes); n.Method != "notifications/progress" {
		t.Errorf("got %s, want the progress sent before the stream closed", n.Method)
	}
}
