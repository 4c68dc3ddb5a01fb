package adversarial

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/sse"
	"github.com/weftmcp/weft/transport/streamable"
)

// httpFixture is the fixture served over Streamable HTTP at /mcp and over
// HTTP+SSE at /sse, on a loopback listener.
type httpFixture struct {
	*fixture
	url string // the server's base URL
}

// startHTTP serves a new fixture until the test ends.
func startHTTP(t *testing.T) *httpFixture {
	t.Helper()
	f := newFixture()
	mh := streamable.NewHandler(f.srv, nil)
	sh := sse.NewHandler(f.srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mh)
	mux.Handle("/sse", sh)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		mh.Shutdown(ctx)
		sh.Shutdown(ctx)
		ts.Close()
	})
	return &httpFixture{fixture: f, url: ts.URL}
}

// newHTTPClient returns a client of its own, with a single connection per
// host, so that the requests after an attack reuse the attacker's
// connection when the server kept it.
func newHTTPClient(t *testing.T) *http.Client {
	tr := &http.Transport{MaxConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: waitLimit}
}

// exchange is one HTTP request and what came back.
type exchange struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request and reads the whole response.
func do(t *testing.T, c *http.Client, method, url string, h http.Header, body io.Reader) *exchange {
	t.Helper()
	e, err := tryDo(c, method, url, h, body)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// tryDo sends a request and reads the whole response. A hugeBody is sent
// with its Content-Length; other readers of unknown length are chunked.
func tryDo(c *http.Client, method, url string, h http.Header, body io.Reader) (*exchange, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return nil, err
	}
	req.Header = h
	if hb, ok := body.(*hugeBody); ok && !hb.chunked {
		req.ContentLength = hb.size
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the response: %w", method, url, err)
	}
	return &exchange{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// reply decodes the JSON-RPC messages of a response: a JSON body, or the
// data of each event of an SSE body.
func (e *exchange) reply(t *testing.T) *reply {
	t.Helper()
	var r reply
	mt, _, _ := mime.ParseMediaType(e.header.Get("Content-Type"))
	switch {
	case mt == "text/event-stream":
		rd := sse.NewReader(bytes.NewReader(e.body), 0)
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("reading the SSE response: %v", err)
			}
			if len(ev.Data) > 0 {
				r.add(t, ev.Data)
			}
		}
	case len(e.body) > 0:
		if mt != "application/json" {
			t.Fatalf("a %d response of type %q: %.300s", e.status, mt, e.body)
		}
		r.add(t, e.body)
	}
	return &r
}

// errorCode returns the code of the JSON-RPC error a refusal carries.
func (e *exchange) errorCode(t *testing.T) int64 {
	t.Helper()
	r := e.reply(t)
	if len(r.responses) != 1 || r.responses[0].Error == nil {
		t.Fatalf("status %d with body %.300q, want one JSON-RPC error", e.status, e.body)
	}
	if strings.TrimSpace(r.responses[0].Error.Message) == "" {
		t.Errorf("error %d has no message", r.responses[0].Error.Code)
	}
	return r.responses[0].Error.Code
}

// postHeaders are the headers of a well-formed POST.
func postHeaders() http.Header {
	return http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
}

// legacySession is a Streamable HTTP session of a legacy version.
type legacySession struct {
	url    string
	v      string
	id     string
	client *http.Client
}

// openLegacy initializes a session at v on its own client.
func openLegacy(t *testing.T, hf *httpFixture, v string) *legacySession {
	t.Helper()
	s := &legacySession{url: hf.url + "/mcp", v: v, client: newHTTPClient(t)}
	e := do(t, s.client, http.MethodPost, s.url, postHeaders(), strings.NewReader(initializeRequest(v)))
	if r := e.reply(t); e.status != http.StatusOK || len(r.responses) != 1 || r.responses[0].Error != nil {
		t.Fatalf("initialize: status %d, body %.300s", e.status, e.body)
	}
	s.id = e.header.Get("Mcp-Session-Id")
	if s.id == "" {
		t.Fatal("initialize returned no Mcp-Session-Id")
	}
	if e := s.post(t, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); e.status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", e.status)
	}
	return s
}

// headers returns the headers of a well-formed POST in the session.
func (s *legacySession) headers() http.Header {
	h := postHeaders()
	h.Set("Mcp-Session-Id", s.id)
	h.Set("MCP-Protocol-Version", s.v)
	return h
}

// post sends a body in the session.
func (s *legacySession) post(t *testing.T, body io.Reader) *exchange {
	t.Helper()
	return do(t, s.client, http.MethodPost, s.url, s.headers(), body)
}

// alive checks that the session still serves a tools/call.
func (s *legacySession) alive(t *testing.T) {
	t.Helper()
	e := s.post(t, strings.NewReader(toolCall(s.v, `"alive"`, "add", `{"a":20,"b":22}`)))
	r := e.reply(t)
	if e.status != http.StatusOK || len(r.responses) != 1 {
		t.Fatalf("the session no longer serves: status %d, body %.300s", e.status, e.body)
	}
	wantSum(t, r.responses[0], 42)
}

// Modern requests mirror their method and name into headers (SEP-2243);
// the suite takes them from the body's text, which may be broken.
var (
	methodInBody = regexp.MustCompile(`"method":"([^"]*)"`)
	nameInBody   = regexp.MustCompile(`"name":"([^"]*)"`)
)

// modernHeaders returns the headers a client would send with body.
func modernHeaders(body string) http.Header {
	h := postHeaders()
	h.Set("MCP-Protocol-Version", mcp.Version20260728)
	if m := methodInBody.FindStringSubmatch(body); m != nil {
		h.Set("Mcp-Method", m[1])
		if mcp.NameParam(m[1]) == "name" {
			if n := nameInBody.FindStringSubmatch(body); n != nil {
				h.Set("Mcp-Name", n[1])
			}
		}
	}
	return h
}

// modernAlive checks that the endpoint still serves a modern tools/call
// on client c.
func modernAlive(t *testing.T, c *http.Client, url string) {
	t.Helper()
	body := toolCall(mcp.Version20260728, `"alive"`, "add", `{"a":20,"b":22}`)
	e := do(t, c, http.MethodPost, url, modernHeaders(body), strings.NewReader(body))
	r := e.reply(t)
	if e.status != http.StatusOK || len(r.responses) != 1 {
		t.Fatalf("the endpoint no longer serves modern requests: status %d, body %.300s", e.status, e.body)
	}
	wantSum(t, r.responses[0], 42)
}

// bystander is a slow tools/call in flight on a connection of its own
// since before the attack.
type bystander struct {
	tag  string
	done chan sent
}

// sent is the outcome of an HTTP request sent in the background.
type sent struct {
	e   *exchange
	err error
}

// startBystander starts the slow call tagged tag with send, and returns
// once the server runs it.
func startBystander(t *testing.T, hf *httpFixture, tag string, send func() (*exchange, error)) *bystander {
	t.Helper()
	b := &bystander{tag: tag, done: make(chan sent, 1)}
	go func() {
		e, err := send()
		b.done <- sent{e, err}
	}()
	select {
	case <-hf.hasStarted(tag):
	case s := <-b.done:
		t.Fatalf("the bystander's call ended before the attack: %+v %v", s.e, s.err)
	case <-time.After(waitLimit):
		t.Fatalf("the bystander's call %s did not start in %v", tag, waitLimit)
	}
	return b
}

// finish releases the bystander's call and checks it completed with its
// own result.
func (b *bystander) finish(t *testing.T, hf *httpFixture) {
	t.Helper()
	close(hf.gate(b.tag))
	select {
	case s := <-b.done:
		if s.err != nil {
			t.Fatalf("the bystander's call failed: %v", s.err)
		}
		e := s.e
		r := e.reply(t)
		if e.status != http.StatusOK || len(r.responses) != 1 || r.responses[0].ID != jsonrpc.StringID("bystander") {
			t.Fatalf("the bystander's call got status %d, body %.300s", e.status, e.body)
		}
		wantText(t, r.responses[0], "slow "+b.tag+" done")
	case <-time.After(waitLimit):
		t.Fatalf("the bystander's call %s did not complete in %v after its release", b.tag, waitLimit)
	}
}

// startLegacyBystander starts a slow call in a legacy session of its own.
func startLegacyBystander(t *testing.T, hf *httpFixture, tag string) *bystander {
	s := openLegacy(t, hf, mcp.Version20251125)
	body := toolCall(s.v, `"bystander"`, "slow", `{"tag":"`+tag+`"}`)
	return startBystander(t, hf, tag, func() (*exchange, error) {
		return tryDo(s.client, http.MethodPost, s.url, s.headers(), strings.NewReader(body))
	})
}

// startModernBystander starts a slow modern call on a client of its own.
func startModernBystander(t *testing.T, hf *httpFixture, tag string) *bystander {
	c := newHTTPClient(t)
	body := toolCall(mcp.Version20260728, `"bystander"`, "slow", `{"tag":"`+tag+`"}`)
	return startBystander(t, hf, tag, func() (*exchange, error) {
		return tryDo(c, http.MethodPost, hf.url+"/mcp", modernHeaders(body), strings.NewReader(body))
	})
}
