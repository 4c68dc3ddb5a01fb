package streamable

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/sse"
)

func TestOneHandlerServesBothErasAtOnce(t *testing.T) {
	f := newFixture(t)
	h, url := serve(t, f, nil)
	legacy := dial(t, url, nil, jsonrpc.ConnOptions{})
	legacy.initialize(t, mcp.Version20251125)
	sid := legacy.client.SessionID()
	eventually(t, "the legacy GET stream is open", func() bool { return getAttached(h, sid) })

	// A legacy call is in flight (blocked) while modern requests come and go.
	ctx := context.Background()
	done := make(chan error)
	go func() {
		text, err := legacy.callTool(ctx, map[string]any{"name": "block"})
		if err == nil && text != "released" {
			err = errors.New("unexpected result " + text)
		}
		done <- err
	}()
	<-f.started
	modern := dial(t, url, nil, jsonrpc.ConnOptions{})
	for i := 0; i < 3; i++ {
		if text, err := modern.callTool(ctx, map[string]any{"_meta": modernMeta(), "name": "echo", "arguments": map[string]any{"text": "m"}}); err != nil || text != "m" {
			t.Fatalf("modern call %d during the legacy session: %q, %v", i, text, err)
		}
	}
	if text, err := legacy.callTool(ctx, map[string]any{"name": "echo", "arguments": map[string]any{"text": "l"}}); err != nil || text != "l" {
		t.Fatalf("legacy call: %q, %v", text, err)
	}
	close(f.release)
	if err := <-done; err != nil {
		t.Fatalf("the blocked legacy call: %v", err)
	}
	<-f.ended
	f.broadcast("notifications/tools/list_changed")
	if n := <-legacy.notes; n.Method != "notifications/tools/list_changed" {
		t.Fatalf("the legacy GET stream carried %s", n.Method)
	}
	if h.sessions.len() != 1 {
		t.Errorf("%d sessions, want only the legacy one (modern requests mint none)", h.sessions.len())
	}
}

func TestEraSelection(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	// No _meta, a legacy version header and no session: the legacy path,
	// which needs a session.
	h := legacyHeaders("")
	h["Mcp-Protocol-Version"] = mcp.Version20250618
	wantError(t, do(t, "POST", url, h, callBody("1", "echo", "x")), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
	// A modern _meta wins over a session header naming no session.
	mh := modernHeaders("tools/call", "echo")
	mh["Mcp-Session-Id"] = "gone"
	wantResponse(t, do(t, "POST", url, mh, modernBody("1", "tools/call", `"name":"echo"`)))
	// An initialize is legacy even with a modern version header.
	ih := legacyHeaders("")
	ih["Mcp-Protocol-Version"] = mcp.Version20260728
	resp := do(t, "POST", url, ih, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	wantResponse(t, resp)
	if resp.Header.Get("Mcp-Session-Id") == "" {
		t.Error("initialize did not start a session")
	}
}

func TestDNSRebindingProtection(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	body := modernBody("1", "tools/call", `"name":"echo"`)
	evil := modernHeaders("tools/call", "echo")
	evil["Host"] = "evil.example.com"
	evil["Origin"] = "http://evil.example.com"
	wantError(t, do(t, "POST", url, evil, body), http.StatusForbidden, codeTransport)

	origin := modernHeaders("tools/call", "echo")
	origin["Origin"] = "http://evil.example.com"
	wantError(t, do(t, "POST", url, origin, body), http.StatusForbidden, codeTransport)

	host := modernHeaders("tools/call", "echo")
	host["Host"] = "evil.example.com"
	wantError(t, do(t, "POST", url, host, body), http.StatusForbidden, codeTransport)

	local := modernHeaders("tools/call", "echo")
	local["Host"] = "localhost:1234"
	local["Origin"] = "http://localhost:5173"
	wantResponse(t, do(t, "POST", url, local, body))
}

func TestAllowedHostsAndOrigins(t *testing.T) {
	_, url := serve(t, newFixture(t), &HandlerOptions{Origins: sse.OriginPolicy{
		AllowedHosts: []string{"mcp.internal"}, AllowedOrigins: []string{"https://app.example.com"}}})
	h := modernHeaders("tools/call", "echo")
	h["Host"] = "MCP.internal"
	h["Origin"] = "https://app.example.com"
	wantResponse(t, do(t, "POST", url, h, modernBody("1", "tools/call", `"name":"echo"`)))
}

// A page of an origin the policy admits (the Inspector at
// http://localhost:6274, say) may use the endpoint from the browser: its
// preflight is answered, and it may read the session ID and the challenge.
// A page of another origin is refused, preflight included.
func TestCORSForAdmittedOrigins(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	preflight := hdr{"Origin": "http://localhost:6274", "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "content-type, mcp-protocol-version, mcp-session-id"}
	resp := do(t, "OPTIONS", url, preflight, "")
	wantStatus(t, resp, http.StatusNoContent)
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "http://localhost:6274" {
		t.Errorf("preflight Access-Control-Allow-Origin %q", got)
	}
	if got := resp.Header.Get("Access-Control-Allow-Headers"); got != "content-type, mcp-protocol-version, mcp-session-id" {
		t.Errorf("preflight Access-Control-Allow-Headers %q", got)
	}
	if got := resp.Header.Get("Access-Control-Allow-Methods"); got != "GET, POST, DELETE" {
		t.Errorf("preflight Access-Control-Allow-Methods %q", got)
	}

	ih := legacyHeaders("")
	ih["Origin"] = "http://localhost:6274"
	init := do(t, "POST", url, ih, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	wantResponse(t, init)
	if init.Header.Get("Access-Control-Allow-Origin") != "http://localhost:6274" ||
		!strings.Contains(init.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Errorf("initialize from a page: CORS headers %v, want its origin allowed and the session ID exposed", init.Header)
	}

	preflight["Origin"] = "http://evil.example.com"
	wantError(t, do(t, "OPTIONS", url, preflight, ""), http.StatusForbidden, codeTransport)
}

func TestBodyLimitIs413(t *testing.T) {
	_, url := serve(t, newFixture(t), &HandlerOptions{MaxBodyBytes: 256})
	big := modernBody("1", "tools/call", `"name":"echo","arguments":{"text":"`+strings.Repeat("x", 300)+`"}`)
	wantError(t, do(t, "POST", url, modernHeaders("tools/call", "echo"), big), http.StatusRequestEntityTooLarge, codeTransport)
}

func TestDefaultBodyLimitIs4MiB(t *testing.T) {
	h := NewHandler(newFixture(t), nil)
	if h.opts.MaxBodyBytes != 4<<20 {
		t.Fatalf("default body limit %d, want 4 MiB", h.opts.MaxBodyBytes)
	}
}

func TestMediaTypeChecks(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	body := modernBody("1", "tools/call", `"name":"echo"`)
	h := modernHeaders("tools/call", "echo")
	h["Content-Type"] = "text/plain"
	wantError(t, do(t, "POST", url, h, body), http.StatusUnsupportedMediaType, codeTransport)
	h = modernHeaders("tools/call", "echo")
	h["Accept"] = "application/json"
	wantError(t, do(t, "POST", url, h, body), http.StatusNotAcceptable, codeTransport)
	h["Accept"] = "text/event-stream"
	wantError(t, do(t, "POST", url, h, body), http.StatusNotAcceptable, codeTransport)
	h["Accept"] = "*/*"
	wantResponse(t, do(t, "POST", url, h, body))
	h = modernHeaders("tools/call", "echo")
	h["Content-Type"] = "application/json; charset=utf-8"
	wantResponse(t, do(t, "POST", url, h, body))
}

func TestInvalidJSONIs400ParseError(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	r := wantError(t, do(t, "POST", url, legacyHeaders(""), `{"jsonrpc":"2.0",`), http.StatusBadRequest, jsonrpc.CodeParseError)
	if !r.ID.IsNull() {
		t.Errorf("a parse error has id %s, want null", r.ID)
	}
	wantError(t, do(t, "POST", url, legacyHeaders(""), `{"jsonrpc":"1.0","id":1,"method":"x"}`), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
}

func TestOtherMethodsAre405(t *testing.T) {
	_, url := serve(t, newFixture(t), nil)
	resp := do(t, "PUT", url, hdr{}, "")
	wantError(t, resp, http.StatusMethodNotAllowed, codeTransport)
	if resp.Header.Get("Allow") == "" {
		t.Error("405 without an Allow header")
	}
}

func TestSessionLimitIs503(t *testing.T) {
	_, url := serve(t, newFixture(t), &HandlerOptions{MaxSessions: 1})
	sid := initSession(t, url, mcp.Version20251125)
	resp := do(t, "POST", url, legacyHeaders(""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	r := wantError(t, resp, http.StatusServiceUnavailable, codeTransport)
	if !strings.Contains(r.Error.Message, "MaxSessions") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("503 %q (Retry-After %q) does not say what to do", r.Error.Message, resp.Header.Get("Retry-After"))
	}
	wantStatus(t, do(t, "DELETE", url, hdr{"Mcp-Session-Id": sid}, ""), http.StatusNoContent)
	initSession(t, url, mcp.Version20251125)
}

func TestIdleSessionsExpire(t *testing.T) {
	h, url := serve(t, newFixture(t), &HandlerOptions{SessionIdleTimeout: time.Hour})
	idle := initSession(t, url, mcp.Version20251125)
	busy := initSession(t, url, mcp.Version20251125)
	get := do(t, "GET", url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": busy}, "")
	wantStatus(t, get, http.StatusOK)
	nextEvent(t, sse.NewReader(get.Body, 1<<20)) // the stream is open

	if n := h.sessions.sweep(time.Now().Add(30 * time.Minute)); n != 0 {
		t.Fatalf("a sweep before the timeout ended %d sessions", n)
	}
	if n := h.sessions.sweep(time.Now().Add(2 * time.Hour)); n != 1 {
		t.Fatalf("the sweep ended %d sessions, want 1 (the one with a GET stream is not idle)", n)
	}
	wantError(t, do(t, "POST", url, legacyHeaders(idle), callBody("1", "echo", "x")), http.StatusNotFound, CodeSessionNotFound)
	wantResponse(t, do(t, "POST", url, legacyHeaders(busy), callBody("1", "echo", "x")))
}

func TestFullTableReclaimsIdleSessions(t *testing.T) {
	h, url := serve(t, newFixture(t), &HandlerOptions{MaxSessions: 1, SessionIdleTimeout: time.Hour})
	first := initSession(t, url, mcp.Version20251125)
	wantError(t, do(t, "POST", url, legacyHeaders(""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`),
		http.StatusServiceUnavailable, codeTransport)
	h.sessions.skew.Store(int64(2 * time.Hour))
	// The first session is now idle past its timeout: a new initialize reclaims it.
	initSession(t, url, mcp.Version20251125)
	wantError(t, do(t, "POST", url, legacyHeaders(first), callBody("1", "echo", "x")), http.StatusNotFound, CodeSessionNotFound)
}

func TestShutdownLetsRequestsFinish(t *testing.T) {
	f := newFixture(t)
	h, url := serve(t, f, nil)
	listen := mustRequest(t, "POST", url, modernHeaders("subscriptions/listen", ""), modernBody("2", "subscriptions/listen", `"notifications":{}`))
	listenResp, err := http.DefaultClient.Do(listen)
	if err != nil {
		t.Fatal(err)
	}
	defer listenResp.Body.Close()
	nextEvent(t, sse.NewReader(listenResp.Body, 1<<20)) // acknowledged

	call := make(chan *jsonrpc.Response)
	go func() {
		resp, err := http.DefaultClient.Do(mustRequest(t, "POST", url, modernHeaders("tools/call", "block"), modernBody("1", "tools/call", `"name":"block"`)))
		if err != nil {
			t.Error(err)
			close(call)
			return
		}
		defer resp.Body.Close()
		call <- wantResponse(t, resp)
	}()
	<-f.started
	shut := make(chan error)
	go func() { shut <- h.Shutdown(context.Background()) }()
	if cause := <-f.ended; !errors.Is(cause, ErrShutdown) {
		t.Fatalf("the listen stream ended with cause %v, want ErrShutdown at once", cause)
	}
	eventually(t, "new requests are refused", func() bool {
		resp, err := http.DefaultClient.Do(mustRequest(t, "POST", url, modernHeaders("tools/call", "echo"), modernBody("3", "tools/call", `"name":"echo"`)))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	close(f.release) // the in-flight call may finish
	if r := <-call; r == nil || r.Error != nil {
		t.Fatalf("the in-flight call got %v", r)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestShutdownCancelsWhatOutlivesTheDeadline(t *testing.T) {
	f := newFixture(t)
	h, url := serve(t, f, nil)
	sid := initSession(t, url, mcp.Version20251125)
	go func() {
		resp, err := http.DefaultClient.Do(mustRequest(t, "POST", url, modernHeaders("tools/call", "block"), modernBody("1", "tools/call", `"name":"block"`)))
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-f.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Shutdown past its deadline returned %v", err)
	}
	if cause := <-f.ended; !errors.Is(cause, ErrShutdown) {
		t.Fatalf("the request outliving shutdown ended with %v, want ErrShutdown", cause)
	}
	if h.sessions.lookup(sid) != nil {
		t.Fatal("a session survived Shutdown")
	}
}
