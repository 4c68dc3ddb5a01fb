package streamable

import (
	"bufio"
	"net/http"
	"strings"
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
