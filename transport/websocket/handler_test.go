package websocket_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	ws "github.com/coder/websocket"

	"github.com/weftmcp/weft/transport/streamable"
	"github.com/weftmcp/weft/transport/websocket"
)

// The Streamable HTTP endpoint hands a WebSocket upgrade to its WebSocket
// side; the server selects the subprotocol "mcp", without which a
// WHATWG WebSocket client (the TypeScript SDK's) fails the connection.
func TestStreamableEndpointAcceptsWebSocketWithTheMCPSubprotocol(t *testing.T) {
	url := serve(t, streamable.NewHandler(newServer(), nil))
	conn, resp, err := ws.Dial(ctxFor(t), url, &ws.DialOptions{Subprotocols: []string{"other", websocket.Subprotocol}})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer conn.CloseNow()
	if got := resp.Header.Get("Sec-WebSocket-Protocol"); got != websocket.Subprotocol {
		t.Fatalf("Sec-WebSocket-Protocol = %q, want %q", got, websocket.Subprotocol)
	}
	s := connect(t, url, nil)
	if got, err := callText(t, s, "whoami"); err != nil || got != `{"principal":""}` {
		t.Fatalf("whoami = %q, %v", got, err)
	}
}

// An upgrade that does not offer "mcp" is refused with 400 saying so.
func TestUpgradeWithoutTheMCPSubprotocolIsRefused(t *testing.T) {
	url := serve(t, streamable.NewHandler(newServer(), nil))
	_, resp, err := ws.Dial(ctxFor(t), url, &ws.DialOptions{Subprotocols: []string{"chat"}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("Dial without mcp: %v, %+v; want 400", err, resp)
	}
}

// A page of a foreign origin gets 403 on upgrade, by the same policy as
// Streamable HTTP requests; a local origin and an allowed one get through.
func TestUpgradeFromAForeignOriginIsRefusedWith403(t *testing.T) {
	opts := &streamable.HandlerOptions{}
	opts.Origins.AllowedOrigins = []string{"https://app.example.com"}
	url := serve(t, streamable.NewHandler(newServer(), opts))

	_, err := websocket.Dial(ctxFor(t), url, &websocket.DialOptions{Header: http.Header{"Origin": {"https://evil.example"}}})
	var refused *websocket.RefusedError
	if !errors.As(err, &refused) || refused.StatusCode != http.StatusForbidden || !strings.Contains(refused.Body, "evil.example") {
		t.Fatalf("Dial from a foreign origin: %v; want a 403 naming the origin", err)
	}
	for _, origin := range []string{"http://localhost:5173", "https://app.example.com"} {
		s := connect(t, url, &websocket.DialOptions{Header: http.Header{"Origin": {origin}}})
		if _, err := callText(t, s, "whoami"); err != nil {
			t.Fatalf("whoami from %s: %v", origin, err)
		}
	}
}

// One client may hold MaxConnectionsPerClient connections; one more is
// refused with 429 and the open ones carry on.
func TestConnectionsPerClientAreBounded(t *testing.T) {
	url := serve(t, websocket.NewHandler(newServer(), &websocket.HandlerOptions{MaxConnectionsPerClient: 1}))
	s := connect(t, url, nil)
	_, err := websocket.Dial(ctxFor(t), url, nil)
	var refused *websocket.RefusedError
	if !errors.As(err, &refused) || refused.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second connection: %v; want 429", err)
	}
	if _, err := callText(t, s, "whoami"); err != nil {
		t.Fatalf("the first connection after the refusal: %v", err)
	}
}

// A plain GET to a WebSocket-only endpoint is told to upgrade.
func TestPlainRequestToTheWebSocketHandlerGets426(t *testing.T) {
	url := serve(t, websocket.NewHandler(newServer(), nil))
	resp, err := http.Get("http" + strings.TrimPrefix(url, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUpgradeRequired || resp.Header.Get("Upgrade") != "websocket" {
		t.Fatalf("GET: %d, Upgrade %q; want 426 and Upgrade: websocket", resp.StatusCode, resp.Header.Get("Upgrade"))
	}
}

// A binary message ends the connection with 1003 (unsupported data).
func TestBinaryMessageClosesTheConnectionWith1003(t *testing.T) {
	url := serve(t, websocket.NewHandler(newServer(), nil))
	conn, _, err := ws.Dial(ctxFor(t), url, &ws.DialOptions{Subprotocols: []string{websocket.Subprotocol}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if err := conn.Write(ctxFor(t), ws.MessageBinary, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	_, _, err = conn.Read(ctxFor(t))
	if ws.CloseStatus(err) != ws.StatusUnsupportedData {
		t.Fatalf("after a binary message, Read: %v; want a close with 1003", err)
	}
}

// Shutdown closes open connections with 1001 (going away) and refuses new
// upgrades with 503.
func TestShutdownClosesConnectionsWithGoingAway(t *testing.T) {
	h := streamable.NewHandler(newServer(), nil)
	url := serve(t, h)
	conn, _, err := ws.Dial(ctxFor(t), url, &ws.DialOptions{Subprotocols: []string{websocket.Subprotocol}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	closed := make(chan error, 1)
	go func() {
		_, _, err := conn.Read(ctxFor(t))
		closed <- err
	}()
	if err := h.Shutdown(ctxFor(t)); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-closed; ws.CloseStatus(err) != ws.StatusGoingAway {
		t.Fatalf("Read during Shutdown: %v; want a close with 1001", err)
	}
	_, err = websocket.Dial(ctxFor(t), url, nil)
	var refused *websocket.RefusedError
	if !errors.As(err, &refused) || refused.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("Dial after Shutdown: %v; want 503", err)
	}
}
