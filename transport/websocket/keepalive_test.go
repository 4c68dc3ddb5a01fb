package websocket_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ws "github.com/coder/websocket"

	"github.com/weftmcp/weft/transport/websocket"
)

// A peer that does not answer a ping within PongTimeout is taken as dead:
// the server closes the connection with 1008, saying why.
func TestPeerThatAnswersNoPingIsClosed(t *testing.T) {
	url := serve(t, websocket.NewHandler(newServer(), &websocket.HandlerOptions{
		ConnOptions: websocket.ConnOptions{KeepAlive: 10 * time.Millisecond, PongTimeout: 50 * time.Millisecond},
	}))
	pinged := make(chan struct{}, 1)
	conn, _, err := ws.Dial(ctxFor(t), url, &ws.DialOptions{
		Subprotocols: []string{websocket.Subprotocol},
		OnPingReceived: func(context.Context, []byte) bool {
			select {
			case pinged <- struct{}{}:
			default:
			}
			return false // no pong
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	closed := make(chan error, 1)
	go func() {
		_, _, err := conn.Read(ctxFor(t))
		closed <- err
	}()
	select {
	case <-pinged:
	case <-time.After(testTimeout):
		t.Fatal("no ping arrived")
	}
	select {
	case err := <-closed:
		if ws.CloseStatus(err) != ws.StatusPolicyViolation || !strings.Contains(err.Error(), "no pong") {
			t.Fatalf("Read: %v; want a close with 1008 saying no pong came", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("the connection stayed open although no pong answered the pings")
	}
}

// A peer that answers pings stays connected across many of them.
func TestPeerThatAnswersPingsStaysConnected(t *testing.T) {
	keepAlive := websocket.ConnOptions{KeepAlive: 5 * time.Millisecond, PongTimeout: testTimeout}
	url := serve(t, websocket.NewHandler(newServer(), &websocket.HandlerOptions{ConnOptions: keepAlive}))
	// Both sides of this session ping while calls go on.
	s := connect(t, url, &websocket.DialOptions{ConnOptions: keepAlive})
	for range 20 {
		if _, err := callText(t, s, "whoami"); err != nil {
			t.Fatalf("whoami: %v", err)
		}
	}
	pings := make(chan struct{}, 3)
	conn, _, err := ws.Dial(ctxFor(t), url, &ws.DialOptions{
		Subprotocols: []string{websocket.Subprotocol},
		OnPingReceived: func(context.Context, []byte) bool {
			select {
			case pings <- struct{}{}:
			default:
			}
			return true
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	read := make(chan error, 1)
	go func() {
		_, _, err := conn.Read(ctxFor(t))
		read <- err
	}()
	for i := range 3 {
		select {
		case <-pings:
		case err := <-read:
			t.Fatalf("the connection ended after %d pings: %v", i, err)
		case <-time.After(testTimeout):
			t.Fatalf("only %d pings arrived", i)
		}
	}
	if err := conn.Write(ctxFor(t), ws.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatalf("writing after the pings: %v", err)
	}
	if err := <-read; err != nil {
		t.Fatalf("reading the ping's answer: %v", err)
	}
}

// The read and write timeouts of the http.Server serving the endpoint do
// not cut a WebSocket session, which outlives them.
func TestHTTPServerTimeoutsDoNotCutASession(t *testing.T) {
	h := websocket.NewHandler(newServer(), &websocket.HandlerOptions{
		ConnOptions: websocket.ConnOptions{KeepAlive: 10 * time.Millisecond, PongTimeout: testTimeout},
	})
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ReadTimeout = 20 * time.Millisecond
	ts.Config.WriteTimeout = 20 * time.Millisecond
	ts.Start()
	defer ts.Close()
	defer h.Shutdown(context.Background())

	var pings atomic.Int32
	seen := make(chan struct{}, 1)
	conn, _, err := ws.Dial(ctxFor(t), "ws"+strings.TrimPrefix(ts.URL, "http"), &ws.DialOptions{
		Subprotocols: []string{websocket.Subprotocol},
		OnPingReceived: func(context.Context, []byte) bool {
			if pings.Add(1) == 10 { // 10 keep-alive periods: past both timeouts
				seen <- struct{}{}
			}
			return true
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	read := make(chan error, 1)
	go func() {
		_, _, err := conn.Read(ctxFor(t))
		read <- err
	}()
	select {
	case <-seen:
	case err := <-read:
		t.Fatalf("the connection ended after %d pings: %v", pings.Load(), err)
	case <-time.After(testTimeout):
		t.Fatalf("only %d pings arrived", pings.Load())
	}
	if err := conn.Write(ctxFor(t), ws.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatalf("writing after the server's timeouts: %v", err)
	}
	if err := <-read; err != nil {
		t.Fatalf("reading the answer after the server's timeouts: %v", err)
	}
}
