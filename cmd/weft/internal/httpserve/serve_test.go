package httpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/auth"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/sse"
	"github.com/weftmcp/weft/transport/streamable"
)

// publicListener reports every connection it accepts as accepted on
// 192.0.2.10:8080, an address that is not loopback: the server behaves as
// it does behind `--http 0.0.0.0:8080`, while the traffic stays on the
// loopback interface.
type publicListener struct{ net.Listener }

func (l publicListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return publicConn{c}, nil
}

type publicConn struct{ net.Conn }

func (publicConn) LocalAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 8080} }

// start serves a fresh server with Serve on a loopback listener that
// passes for a public one, and returns the endpoint's URL; the server
// stops when the test ends.
func start(t *testing.T, protect func(url string) func(http.Handler) http.Handler, opts Options) string {
	t.Helper()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := URL(ln)
	var p func(http.Handler) http.Handler
	if protect != nil {
		p = protect(url)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	srv := server.New(mcp.Implementation{Name: "test", Version: "1"}, nil)
	go func() {
		done <- Serve(ctx, srv, publicListener{ln}, slog.New(slog.DiscardHandler), p, opts)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return url
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends an initialize with the headers, and returns the response
// with its body read.
func post(t *testing.T, method, url string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(initialize))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// wantForbidden fails the test unless resp is a 403 with no CORS header.
func wantForbidden(t *testing.T, what string, resp *http.Response, body string) {
	t.Helper()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("%s: %d %s, want 403", what, resp.StatusCode, body)
	}
	for k := range resp.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("%s: the refusal carries the CORS header %s", what, k)
		}
	}
}

// On a public address, a page of a foreign origin is refused, its
// preflight too, while programs (no Origin) and the pages of an
// --allow-origin are served.
func TestServeRefusesForeignOriginsOnEveryAddress(t *testing.T) {
	url := start(t, nil, Options{Handler: streamable.HandlerOptions{Origins: sse.OriginPolicy{AllowedOrigins: []string{"https://app.example.com"}}}})
	resp, body := post(t, "POST", url, map[string]string{"Origin": "http://evil.example"})
	wantForbidden(t, "POST from a foreign page", resp, body)
	resp, body = post(t, "OPTIONS", url, map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
	wantForbidden(t, "preflight of a foreign page", resp, body)
	if resp, body := post(t, "POST", url, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("a client without Origin got %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, "POST", url, map[string]string{"Origin": "https://app.example.com"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Errorf("a page of the allowed origin got %d %s, Access-Control-Allow-Origin %q", resp.StatusCode, body, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

// With --auth-issuer, a foreign page gets 403 from the Origin check, not
// the authorization middleware's 401 (which any page may read).
func TestServeChecksOriginBeforeAuthorization(t *testing.T) {
	protect := func(url string) func(http.Handler) http.Handler {
		v, err := auth.NewJWTVerifier(auth.JWTOptions{Issuer: "https://as.example", Audience: url})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := auth.New(auth.Config{Resource: url, AuthorizationServers: []string{"https://as.example"}, Verifier: v})
		if err != nil {
			t.Fatal(err)
		}
		return rs.Handler
	}
	url := start(t, protect, Options{})
	resp, body := post(t, "POST", url, map[string]string{"Origin": "http://evil.example"})
	wantForbidden(t, "POST from a foreign page", resp, body)
	if resp, body := post(t, "POST", url, map[string]string{"Origin": "http://localhost:6274"}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a local page without a token got %d %s, want 401", resp.StatusCode, body)
	}
}

// The per-client session limit reaches the Handler.
func TestServeBoundsSessionsPerClient(t *testing.T) {
	url := start(t, nil, Options{Handler: streamable.HandlerOptions{MaxSessionsPerClient: 1}})
	if resp, body := post(t, "POST", url, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("the first session: %d %s", resp.StatusCode, body)
	}
	if resp, body := post(t, "POST", url, nil); resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "--max-sessions-per-client") {
		t.Errorf("a second session of one client got %d %s, want 429 naming --max-sessions-per-client", resp.StatusCode, body)
	}
}

// A connection stalled mid-request is closed after --read-timeout.
func TestServeClosesStalledConnections(t *testing.T) {
	addr := hostPort(start(t, nil, Options{Server: streamable.HTTPServerOptions{ReadTimeout: 200 * time.Millisecond}}))
	conn := dial(t, addr)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s", Path, addr, len(initialize), initialize[:5])
	awaitClosed(t, conn, "a request stalled mid-body")
}

// An idle keep-alive connection is closed after --idle-timeout.
func TestServeClosesIdleConnections(t *testing.T) {
	// No read timeout, which http.Server would otherwise apply to idle
	// connections too.
	addr := hostPort(start(t, nil, Options{Server: streamable.HTTPServerOptions{ReadTimeout: -1, IdleTimeout: 200 * time.Millisecond}}))
	conn := dial(t, addr)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		Path, addr, len(initialize), initialize)
	if got := awaitClosed(t, conn, "an idle keep-alive connection"); !strings.HasPrefix(got, "HTTP/1.1 200 ") {
		t.Errorf("the request before the idle time got %q", got)
	}
}

// hostPort returns the HOST:PORT of an endpoint URL.
func hostPort(url string) string {
	return strings.TrimSuffix(strings.TrimPrefix(url, "http://"), Path)
}

// dial opens a raw connection to addr, closed when the test ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// awaitClosed reads conn until the server closes it, and returns what it
// sent; it fails the test if the connection is still open after a minute.
func awaitClosed(t *testing.T, conn net.Conn, what string) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	got, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the connection is still open after a minute (the server sent %q)", what, got)
	}
	return string(got)
}
