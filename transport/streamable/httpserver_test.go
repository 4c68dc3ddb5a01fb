package streamable

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// serveTCP serves h with NewHTTPServer(opts) on a loopback listener and
// returns its address.
func serveTCP(t *testing.T, h *Handler, opts *HTTPServerOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := NewHTTPServer(h, opts)
	go hs.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		hs.Shutdown(ctx)
	})
	return ln.Addr().String()
}

// connClosedWait bounds the wait for the server to close a connection:
// generous, since the test's timeouts are short and the machine busy.
const connClosedWait = 60 * time.Second

// awaitClosed reads conn until the server closes it and returns what it
// sent; it fails the test if the connection is still open after
// connClosedWait.
func awaitClosed(t *testing.T, conn net.Conn, what string) string {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(connClosedWait))
	got, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the connection is still open after %v (the server sent %q)", what, connClosedWait, got)
	}
	return string(got)
}

// dialTCP opens a raw connection to addr, closed when the test ends.
func dialTCP(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// A client that stops in the middle of its headers is disconnected.
func TestStalledHeadersAreCut(t *testing.T) {
	addr := serveTCP(t, NewHandler(newFixture(t), nil), &HTTPServerOptions{ReadTimeout: 200 * time.Millisecond})
	conn := dialTCP(t, addr)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n", addr)
	awaitClosed(t, conn, "headers stalled")
}

// A client that stops in the middle of its body is disconnected, after the
// Handler tells it why.
func TestStalledBodyIsCut(t *testing.T) {
	addr := serveTCP(t, NewHandler(newFixture(t), nil), &HTTPServerOptions{ReadTimeout: 200 * time.Millisecond})
	conn := dialTCP(t, addr)
	body := modernBody("1", "tools/call", `"name":"echo"`)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		addr, len(body), body[:10])
	if got := awaitClosed(t, conn, "body stalled"); !strings.HasPrefix(got, "HTTP/1.1 400 ") || !strings.Contains(got, "reading the request body") {
		t.Errorf("the server answered a stalled body with %q, want 400 saying it could not read the body", got)
	}
}

// A keep-alive connection that carries no further request is closed after
// IdleTimeout.
func TestIdleKeepAliveIsClosed(t *testing.T) {
	// No read timeout, which http.Server would otherwise apply to idle
	// connections too.
	addr := serveTCP(t, NewHandler(newFixture(t), nil), &HTTPServerOptions{ReadTimeout: -1, IdleTimeout: 200 * time.Millisecond})
	conn := dialTCP(t, addr)
	body := modernBody("1", "tools/call", `"name":"echo","arguments":{"text":"hi"}`)
	var head strings.Builder
	for k, v := range modernHeaders("tools/call", "echo") {
		fmt.Fprintf(&head, "%s: %s\r\n", k, v)
	}
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %d\r\n\r\n%s", addr, head.String(), len(body), body)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("the request got %d %s (Connection: close %v), want 200 on a connection kept alive", resp.StatusCode, b, resp.Close)
	}
	conn.SetReadDeadline(time.Now().Add(connClosedWait))
	if n, err := br.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("the idle keep-alive connection: read %d bytes, %v; want it closed (EOF) within %v", n, err, connClosedWait)
	}
}

// SSE streams outlive ReadTimeout: a POST whose response streams (here a
// modern subscriptions/listen) once its body has been read, and a legacy
// GET stream, which has no body. Each carries keep-alive comments for ten
// times ReadTimeout, then a notification.
func TestSSEStreamsOutliveReadTimeout(t *testing.T) {
	const readTimeout = 100 * time.Millisecond
	f := newFixture(t)
	h := NewHandler(f, &HandlerOptions{KeepAlive: 20 * time.Millisecond})
	url := "http://" + serveTCP(t, h, &HTTPServerOptions{ReadTimeout: readTimeout}) + "/mcp"

	// outlive reads comments from the stream until 10 × readTimeout have
	// passed since it opened.
	outlive := func(resp *http.Response, sc *bufio.Scanner, opened time.Time) {
		t.Helper()
		for time.Since(opened) < 10*readTimeout {
			awaitComment(t, resp, sc)
		}
	}

	listen, cancel := openListen(t, url)
	defer cancel()
	opened := time.Now()
	sc := bufio.NewScanner(listen.Body)
	outlive(listen, sc, opened)
	f.listen <- &jsonrpc.Request{Method: "notifications/tools/list_changed"}
	awaitLine(t, listen, sc, "notifications/tools/list_changed")

	sid := initSession(t, url, mcp.Version20251125)
	get := do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": mcp.Version20251125}, "")
	wantStatus(t, get, http.StatusOK)
	opened = time.Now()
	sc = bufio.NewScanner(get.Body)
	outlive(get, sc, opened)
	f.broadcast("notifications/resources/list_changed")
	awaitLine(t, get, sc, "notifications/resources/list_changed")
}

// awaitLine scans an SSE response until a line containing want; the
// response is closed if none comes within five seconds.
func awaitLine(t *testing.T, resp *http.Response, sc *bufio.Scanner, want string) {
	t.Helper()
	timeout := time.AfterFunc(5*time.Second, func() { resp.Body.Close() })
	defer timeout.Stop()
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			return
		}
	}
	t.Fatalf("the stream ended (%v) before a line with %q", sc.Err(), want)
}

// NewHTTPServer's defaults bound reads and idle connections, never writes
// (the Handler bounds each write to a stream itself).
func TestNewHTTPServerDefaults(t *testing.T) {
	hs := NewHTTPServer(http.NotFoundHandler(), nil)
	if hs.ReadTimeout != 30*time.Second || hs.IdleTimeout != 2*time.Minute || hs.WriteTimeout != 0 {
		t.Errorf("defaults: read %v, idle %v, write %v; want 30s, 2m and none", hs.ReadTimeout, hs.IdleTimeout, hs.WriteTimeout)
	}
	hs = NewHTTPServer(http.NotFoundHandler(), &HTTPServerOptions{ReadTimeout: -1, IdleTimeout: -1})
	if hs.ReadTimeout != 0 || hs.IdleTimeout != DefaultIdleTimeout {
		t.Errorf("negative options: read %v, idle %v; want no read bound and the default idle timeout", hs.ReadTimeout, hs.IdleTimeout)
	}
}
