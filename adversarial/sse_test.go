package adversarial

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/sse"
)

// openSSE opens an HTTP+SSE session (2024-11-05) and returns a peer that
// posts to its endpoint and reads its event stream, and the endpoint URL.
func openSSE(t *testing.T, hf *httpFixture) (*peer, string) {
	t.Helper()
	p, endpoint := dialSSE(t, hf)
	p.initialize()
	return p, endpoint
}

// dialSSE opens the event stream of an HTTP+SSE session, without the
// handshake.
func dialSSE(t *testing.T, hf *httpFixture) (*peer, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, hf.url+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	streamClient := &http.Client{Transport: &http.Transport{}} // the stream lasts the whole test
	resp, err := streamClient.Do(req)
	if err != nil {
		t.Fatalf("opening the event stream: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("opening the event stream: status %d", resp.StatusCode)
	}
	rd := sse.NewReader(resp.Body, 0)
	ev, err := rd.Next()
	if err != nil || ev.Name != "endpoint" {
		t.Fatalf("the stream's first event is %q %q (%v), want the endpoint", ev.Name, ev.Data, err)
	}
	ref, err := url.Parse(string(ev.Data))
	if err != nil {
		t.Fatalf("the endpoint %q: %v", ev.Data, err)
	}
	base, _ := url.Parse(hf.url + "/sse")
	endpoint := base.ResolveReference(ref).String()
	c := newHTTPClient(t)
	p := newPeer(t, mcp.Version20241105, func(t *testing.T, body io.Reader) int {
		return do(t, c, http.MethodPost, endpoint, http.Header{"Content-Type": {"application/json"}}, body).status
	})
	go func() {
		defer close(p.lines)
		for {
			ev, err := rd.Next()
			if err != nil {
				return
			}
			if ev.Name == "message" {
				p.lines <- append([]byte(nil), ev.Data...)
			}
		}
	}()
	return p, endpoint
}

// sseStatus is the status of a POST of a case: 400 when the body is not a
// message, else 202 (the answers come on the event stream).
func (c badInput) sseStatus() int {
	if c.whole {
		return http.StatusBadRequest
	}
	return http.StatusAccepted
}

// TestSSEAnswersBadInputAndKeepsServing posts the corpus to an HTTP+SSE
// session: each POST gets its status, the answers come on the event
// stream, a valid request right after is served, and a call in flight in
// another session completes unaffected.
func TestSSEAnswersBadInputAndKeepsServing(t *testing.T) {
	hf := startHTTP(t)
	bystander, _ := openSSE(t, hf)
	bystander.send(strings.NewReader(toolCall(bystander.v, `"bystander"`, "slow", `{"tag":"sse"}`)))
	<-hf.hasStarted("sse")

	p, _ := openSSE(t, hf)
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			p.t = t
			want, _ := c.wantFor(p.v)
			if c.whole {
				want = nil // refused by the POST itself
			}
			r, status := p.attack(strings.NewReader(c.body(p.v)), len(want))
			if status != c.sseStatus() {
				t.Errorf("status %d, want %d", status, c.sseStatus())
			}
			expect := c
			if c.whole {
				expect.want, expect.wantAt = nil, nil
			}
			expect.check(t, p.v, r)
		})
	}
	p.t = t
	close(hf.gate("sse"))
	wantText(t, bystander.await(`"bystander"`), "slow sse done")
}

// TestSSERefusesBadPosts posts with a wrong method, session, media type or
// size: each gets the status the transport names, and the session serves
// a valid request afterwards.
func TestSSERefusesBadPosts(t *testing.T) {
	hf := startHTTP(t)
	p, endpoint := openSSE(t, hf)
	c := newHTTPClient(t)
	valid := toolCall(p.v, "1", "add", `{"a":1,"b":2}`)
	for _, tc := range []struct {
		name, method, url, contentType string
		body                           io.Reader
		status                         int
	}{
		{"sessionId missing", http.MethodPost, hf.url + "/sse", "application/json", strings.NewReader(valid), http.StatusBadRequest},
		{"sessionId unknown", http.MethodPost, hf.url + "/sse?sessionId=nope", "application/json", strings.NewReader(valid), http.StatusNotFound},
		{"sessionId of 8 KB", http.MethodPost, hf.url + "/sse?sessionId=" + strings.Repeat("A", 8<<10), "application/json", strings.NewReader(valid), http.StatusNotFound},
		{"Content-Type text/plain", http.MethodPost, endpoint, "text/plain", strings.NewReader(valid), http.StatusUnsupportedMediaType},
		{"Content-Type missing", http.MethodPost, endpoint, "", strings.NewReader(valid), http.StatusUnsupportedMediaType},
		{"100 MB body with its length", http.MethodPost, endpoint, "application/json", newHugeBody(p.v, hugeBodySize), http.StatusRequestEntityTooLarge},
		{"100 MB body chunked", http.MethodPost, endpoint, "application/json", huge(true)(p.v), http.StatusRequestEntityTooLarge},
		{"PUT", http.MethodPut, endpoint, "application/json", strings.NewReader(valid), http.StatusMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			h := http.Header{}
			if tc.contentType != "" {
				h.Set("Content-Type", tc.contentType)
			}
			if e := do(t, c, tc.method, tc.url, h, tc.body); e.status != tc.status {
				t.Errorf("status %d, want %d (body %.300q)", e.status, tc.status, e.body)
			}
			if r, _ := p.attack(strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/nothing"}`), 0); len(r.responses) != 0 {
				t.Errorf("%d stray answers on the stream", len(r.responses))
			}
		})
	}
}

// TestSSERequestBeforeInitialize sends a request before initialize in an
// HTTP+SSE session: it is refused, and the session can still be
// initialized and used.
func TestSSERequestBeforeInitialize(t *testing.T) {
	p, _ := dialSSE(t, startHTTP(t))
	refusedBeforeInitialize(t, p)
}
