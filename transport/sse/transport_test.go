package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport"
)

// echoServer serves sessions with a jsonrpc.Conn: "echo" returns its
// params, "notify" sends a notification first, and every session's Conn
// and SessionInfo are kept so tests can watch it end and see who opened it.
type echoServer struct {
	mu    sync.Mutex
	conns []*jsonrpc.Conn
	infos []transport.SessionInfo
}

func (e *echoServer) ConnectSession(ctx context.Context, stream jsonrpc.Stream, info transport.SessionInfo) error {
	// Held until the session is recorded: a test that got an answer from
	// the Conn finds it.
	e.mu.Lock()
	defer e.mu.Unlock()
	e.infos = append(e.infos, info)
	ready := make(chan *jsonrpc.Conn, 1)
	self := sync.OnceValue(func() *jsonrpc.Conn { return <-ready }) // the Conn, once NewConn returned
	conn := jsonrpc.NewConn(stream, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "echo":
			return req.Params, nil
		case "notify":
			if err := self().Notify(ctx, "notifications/message", map[string]any{"level": "info", "data": "hi"}); err != nil {
				return nil, err
			}
			return map[string]any{}, nil
		}
		return nil, nil
	})})
	ready <- conn
	e.conns = append(e.conns, conn)
	context.AfterFunc(ctx, func() { conn.Close() })
	return nil
}

func (e *echoServer) conn(i int) *jsonrpc.Conn {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.conns[i]
}

// start serves a Handler on a loopback listener at /sse.
func start(t *testing.T, srv Server, opts *HandlerOptions) (*Handler, string) {
	t.Helper()
	h := NewHandler(srv, opts)
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.Close()
	})
	return h, ts.URL + "/sse"
}

func TestClientAndServerExchangeMessages(t *testing.T) {
	srv := &echoServer{}
	_, url := start(t, srv, nil)
	ctx := context.Background()
	c, err := Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes := make(chan *jsonrpc.Request, 4)
	conn := jsonrpc.NewConn(c, jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
		notes <- req
		return nil, nil
	})})
	defer conn.Close()
	var out map[string]string
	if err := conn.Call(ctx, "echo", map[string]string{"text": "hello"}, &out); err != nil || out["text"] != "hello" {
		t.Fatalf("echo: %v, %v", out, err)
	}
	if err := conn.Call(ctx, "notify", nil, nil); err != nil {
		t.Fatalf("notify: %v", err)
	}
	if n := <-notes; n.Method != "notifications/message" {
		t.Fatalf("got %s, want the server's notification on the event stream", n.Method)
	}
}

func TestClosingTheStreamEndsTheSession(t *testing.T) {
	srv := &echoServer{}
	_, url := start(t, srv, nil)
	c, err := Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(c, jsonrpc.ConnOptions{})
	if err := conn.Call(context.Background(), "echo", map[string]int{"a": 1}, nil); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	select {
	case <-srv.conn(0).Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the server's session outlived the client's event stream")
	}
}

func TestServerEndingTheSessionEndsTheClient(t *testing.T) {
	srv := &echoServer{}
	h, url := start(t, srv, nil)
	c, err := Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Shutdown(context.Background())
	if _, err := c.Read(context.Background()); err != io.EOF {
		t.Fatalf("Read after the server ended the stream: %v, want io.EOF", err)
	}
	if err := c.Write(context.Background(), &jsonrpc.Request{Method: "x"}); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("Write after the stream ended: %v, want ErrClosed", err)
	}
}

func TestEndpointEventNamesThePOSTURL(t *testing.T) {
	_, url := start(t, &echoServer{}, nil)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	ev, err := NewReader(resp.Body, 0).Next()
	if err != nil || ev.Name != "endpoint" || !strings.HasPrefix(string(ev.Data), "/sse?sessionId=") {
		t.Fatalf("first event %+v %q, %v; want endpoint /sse?sessionId=…", ev, ev.Data, err)
	}
	post := func(path, ct, body string) *http.Response {
		resp, err := http.Post(strings.TrimSuffix(url, "/sse")+path, ct, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	msg := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	if r := post(string(ev.Data), "application/json", msg); r.StatusCode != http.StatusAccepted {
		t.Errorf("POST to the endpoint: %d, want 202", r.StatusCode)
	}
	if r := post("/sse?sessionId=unknown", "application/json", msg); r.StatusCode != http.StatusNotFound {
		t.Errorf("POST to an unknown session: %d, want 404", r.StatusCode)
	}
	if r := post("/sse", "application/json", msg); r.StatusCode != http.StatusBadRequest {
		t.Errorf("POST without sessionId: %d, want 400", r.StatusCode)
	}
	if r := post(string(ev.Data), "text/plain", msg); r.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("POST of text/plain: %d, want 415", r.StatusCode)
	}
	if r := post(string(ev.Data), "application/json", `{"jsonrpc":`); r.StatusCode != http.StatusBadRequest {
		t.Errorf("POST of invalid JSON: %d, want 400", r.StatusCode)
	}
}

func TestServerBoundsPOSTBodies(t *testing.T) {
	_, url := start(t, &echoServer{}, &HandlerOptions{MaxBodyBytes: 64})
	c, err := Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Write(context.Background(), &jsonrpc.Request{Method: "x", Params: []byte(`{"a":"` + strings.Repeat("x", 100) + `"}`)})
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("an oversized message gave %v, want a 413 StatusError", err)
	}
}

func TestServerRefusesDNSRebinding(t *testing.T) {
	_, url := start(t, &echoServer{}, nil)
	req, _ := http.NewRequest("GET", url, nil)
	req.Host = "evil.example.com"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a foreign Host got %d, want 403", resp.StatusCode)
	}
}

func TestServerBoundsSessions(t *testing.T) {
	_, url := start(t, &echoServer{}, &HandlerOptions{MaxSessions: 1})
	c, err := Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = Dial(context.Background(), url, nil)
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a session over the limit gave %v, want a 503", err)
	}
}

func TestClientRefusesAnEndpointOnAnotherOrigin(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		WriteEvent(w, Event{Name: "endpoint", Data: []byte("http://elsewhere.example.com/messages")})
	}))
	defer ts.Close()
	if _, err := Dial(context.Background(), ts.URL, nil); err == nil || !strings.Contains(err.Error(), "origin") {
		t.Fatalf("Dial accepted an endpoint on another origin: %v", err)
	}
}

func TestDialFailsOnAServerWithoutTheTransport(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		WriteEvent(w, Event{Data: []byte(`{"jsonrpc":"2.0","method":"x"}`)})
	}))
	defer ts.Close()
	if _, err := Dial(context.Background(), ts.URL, nil); err == nil || !strings.Contains(err.Error(), "endpoint") {
		t.Fatalf("Dial accepted a stream without an endpoint event: %v", err)
	}
	ts405 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}))
	defer ts405.Close()
	var se *StatusError
	if _, err := Dial(context.Background(), ts405.URL, nil); !errors.As(err, &se) || se.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("Dial to a 405 server gave %v, want a StatusError", err)
	}
}

func TestDialContextBoundsTheWaitForTheEndpoint(t *testing.T) {
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer ts.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		_, err := Dial(ctx, ts.URL, nil)
		errc <- err
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Dial with a cancelled context gave %v", err)
	}
}

func TestSessionInfoNamesTheSessionAndWhoOpenedIt(t *testing.T) {
	srv := &echoServer{}
	h := NewHandler(srv, nil)
	// Authentication as the auth middleware records it.
	asAlice := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := &auth.TokenInfo{Issuer: "https://as.example", Subject: "alice"}
		h.ServeHTTP(w, r.WithContext(auth.ContextWithTokenInfo(r.Context(), info)))
	})
	ts := httptest.NewServer(asAlice)
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		ts.Close()
	})
	c, err := Dial(context.Background(), ts.URL+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(c, jsonrpc.ConnOptions{})
	defer conn.Close()
	if err := conn.Call(context.Background(), "echo", map[string]int{"a": 1}, nil); err != nil { // the session is connected
		t.Fatal(err)
	}
	srv.mu.Lock()
	infos := srv.infos
	srv.mu.Unlock()
	if len(infos) != 1 {
		t.Fatalf("the server was told of %d sessions, want 1", len(infos))
	}
	if info := infos[0]; info.Principal != "https://as.example#sub:alice" || len(info.ID) < 22 {
		t.Errorf("SessionInfo %+v, want the session's ID and alice's principal", info)
	}
}

// One client cannot hold more than MaxSessionsPerClient event streams:
// the next gets 429 saying so, other clients still get theirs, and closing
// a stream makes room.
func TestServerBoundsSessionsPerClient(t *testing.T) {
	h := NewHandler(&echoServer{}, &HandlerOptions{MaxSessionsPerClient: 1})
	fromAddress := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = r.Header.Get("X-Address")
		h.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(fromAddress)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.Close()
	})
	dial := func(addr string) (*Client, error) {
		return Dial(context.Background(), ts.URL+"/sse", &ClientOptions{PrepareRequest: func(r *http.Request) error {
			r.Header.Set("X-Address", addr)
			return nil
		}})
	}
	first, err := dial("203.0.113.7:1000")
	if err != nil {
		t.Fatal(err)
	}
	_, err = dial("203.0.113.7:1001")
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusTooManyRequests || !strings.Contains(err.Error(), "MaxSessionsPerClient") {
		t.Fatalf("a second stream of one client gave %v, want a 429 naming MaxSessionsPerClient", err)
	}
	other, err := dial("203.0.113.8:1000")
	if err != nil {
		t.Fatalf("another client: %v", err)
	}
	defer other.Close()
	first.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		again, err := dial("203.0.113.7:1002")
		if err == nil {
			again.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30s after the client closed its stream, a new one still gets %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A client's malformed answer to a server request (both "result" and
// "error") is refused with 400, and fails the server's call it names, as it
// does over stdio, rather than leave that call waiting until its context
// ends.
func TestInvalidAnswerToAServerRequestFailsItsCall(t *testing.T) {
	srv := &echoServer{}
	_, url := start(t, srv, nil)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := NewReader(resp.Body, 0)
	ev, err := r.Next()
	if err != nil || ev.Name != "endpoint" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	endpoint := strings.TrimSuffix(url, "/sse") + string(ev.Data)
	post := func(body string) int {
		t.Helper()
		pr, err := http.Post(endpoint, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		pr.Body.Close()
		return pr.StatusCode
	}
	// The answer to an echo shows the server's Conn is connected.
	post(`{"jsonrpc":"2.0","id":"e","method":"echo","params":{}}`)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	called := make(chan error, 1)
	go func() { called <- srv.conn(0).Call(ctx, "ping", nil, nil) }()
	if ev, err = r.Next(); err != nil {
		t.Fatal(err)
	}
	msg, err := jsonrpc.DecodeMessage(ev.Data)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok || req.Method != "ping" {
		t.Fatalf("got %q, want the server's ping", ev.Data)
	}
	bad := `{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"result":{},"error":{"code":1,"message":"x"}}`
	if status := post(bad); status != http.StatusBadRequest {
		t.Errorf("the invalid answer got HTTP %d, want 400", status)
	}
	err = <-called
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the server's call was not failed by the client's invalid response; it waited until its context ended: %v", err)
	}
	if err == nil {
		t.Fatal("the server's call succeeded on an invalid response")
	}
}
