package streamable

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftmcp/weft/mcp"
)

// awaitComment scans an SSE response until the keep-alive comment and
// returns the lines before it; the response is closed if none comes within
// five seconds.
func awaitComment(t *testing.T, resp *http.Response, sc *bufio.Scanner) []string {
	t.Helper()
	timeout := time.AfterFunc(5*time.Second, func() { resp.Body.Close() })
	defer timeout.Stop()
	var before []string
	for sc.Scan() {
		if sc.Text() == ": keep-alive" {
			return before
		}
		before = append(before, sc.Text())
	}
	t.Fatalf("no keep-alive comment within 5s; the stream carried %q", before)
	return nil
}

// A quiet legacy GET stream gets a comment line after KeepAlive, which SSE
// clients ignore and proxies see as traffic.
func TestQuietGETStreamGetsKeepAliveComments(t *testing.T) {
	_, url := serve(t, newFixture(t), &HandlerOptions{KeepAlive: 20 * time.Millisecond})
	sid := initSession(t, url, mcp.Version20251125)
	get := do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": mcp.Version20251125}, "")
	wantStatus(t, get, http.StatusOK)
	sc := bufio.NewScanner(get.Body)
	before := awaitComment(t, get, sc)
	if len(before) == 0 || !strings.HasPrefix(before[0], "id: 0_") {
		t.Errorf("the GET stream carried %q before the comment, want its priming event first", before)
	}
	awaitComment(t, get, sc) // and again while it stays quiet
}

// A quiet modern subscriptions/listen stream gets them too.
func TestQuietListenStreamGetsKeepAliveComments(t *testing.T) {
	_, url := serve(t, newFixture(t), &HandlerOptions{KeepAlive: 20 * time.Millisecond})
	resp, cancel := openListen(t, url)
	defer cancel()
	before := awaitComment(t, resp, bufio.NewScanner(resp.Body))
	if !strings.Contains(strings.Join(before, "\n"), "notifications/subscriptions/acknowledged") {
		t.Errorf("the listen stream carried %q before the comment, want the acknowledgement first", before)
	}
}

// A client that stops reading its GET stream does not hold the server up:
// once a write has waited WriteTimeout, the connection is let go (the
// client may resume with Last-Event-ID) and sending goes on.
func TestAStalledReaderIsLetGo(t *testing.T) {
	f := newFixture(t)
	_, url := serve(t, f, &HandlerOptions{WriteTimeout: 100 * time.Millisecond})
	sid := initSession(t, url, mcp.Version20251125)
	u, conn := dialRaw(t, url)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: %s\r\n\r\n",
		u.Path, u.Host, sid, mcp.Version20251125)
	// The client never reads: the socket buffers fill, then writes block.
	big := map[string]any{"padding": strings.Repeat("x", 64<<10)}
	f.mu.Lock()
	server := f.conns[0]
	f.mu.Unlock()
	const notes = 400 // 25 MiB, far more than the socket buffers hold
	var sent atomic.Int32
	done := make(chan error, 1)
	go func() {
		for range notes {
			if err := server.Notify(context.Background(), "notifications/message", big); err != nil {
				done <- err
				return
			}
			sent.Add(1)
		}
		done <- nil
	}()
	// Encoding 25 MiB takes seconds under the race detector, and many more
	// on a loaded machine: the bound only turns a hang into a failure.
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("sending to a stalled client failed: %v", err)
		}
	case <-time.After(stalledSendLimit):
		t.Fatalf("sending to a client that stopped reading hung: %d of %d notifications sent within %v", sent.Load(), notes, stalledSendLimit)
	}
}

// stalledSendLimit bounds TestAStalledReaderIsLetGo's wait for its sends to
// end; with the WriteTimeout of 100ms they end in seconds.
const stalledSendLimit = 5 * time.Minute

// A client that never reads the JSON answer to its POST does not hold the
// session's writes for longer than WriteTimeout either: the answer is
// written in the session's write turn, and the session's other responses
// must still go out.
func TestAStalledJSONReaderIsLetGo(t *testing.T) {
	f := newFixture(t)
	big := make(chan struct{}, 1)
	_, url := serveBehind(t, f, &HandlerOptions{MaxBodyBytes: 64 << 20, WriteTimeout: 200 * time.Millisecond}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(&bigWriteSignal{ResponseWriter: w, big: big}, r)
		})
	})
	sid := initSession(t, url, mcp.Version20251125)

	// A raw connection that sends a POST whose answer is 32 MiB, and never reads.
	u, conn := dialRaw(t, url)
	conn.(*net.TCPConn).SetReadBuffer(4096)
	body := callBody("50", "echo", strings.Repeat("a", 32<<20))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s",
		u.Path, u.Host, sid, len(body), body)
	<-big // the server is writing the answer nobody reads

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := mustRequest(t, "POST", url, legacyHeaders(sid), callBody("51", "echo", "small")).WithContext(ctx)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("another request of the session got no answer while a client did not read its JSON answer (WriteTimeout 200ms): %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d, want 200 with the echo's answer", resp.StatusCode)
	}
}

// bigWriteSignal is a ResponseWriter that signals big when a Write of more
// than 1 MiB begins.
type bigWriteSignal struct {
	http.ResponseWriter
	big chan struct{}
}

// Write signals a big write, then writes b.
func (w *bigWriteSignal) Write(b []byte) (int, error) {
	if len(b) > 1<<20 {
		select {
		case w.big <- struct{}{}:
		default:
		}
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap returns the wrapped ResponseWriter, for http.ResponseController.
func (w *bigWriteSignal) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// dialRaw opens a TCP connection to the endpoint at url, for a client that
// speaks HTTP by hand; it closes when the test ends.
func dialRaw(t *testing.T, url string) (*neturl.URL, net.Conn) {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return u, conn
}
