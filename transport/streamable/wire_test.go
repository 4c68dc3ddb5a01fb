package streamable

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/transport/sse"
)

// hdr is a set of request headers for the raw HTTP helpers.
type hdr map[string]string

// legacyHeaders returns the headers of a legacy POST in session sid
// (none when sid is empty).
func legacyHeaders(sid string) hdr {
	h := hdr{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if sid != "" {
		h["Mcp-Session-Id"] = sid
	}
	return h
}

// do sends one raw HTTP request and returns the response; the body is
// closed when the test ends.
func do(t *testing.T, method, url string, h hdr, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readAll returns the whole body.
func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	return b
}

// wantStatus fails the test unless resp has the status.
func wantStatus(t *testing.T, resp *http.Response, status int) {
	t.Helper()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, want %d; body: %s", resp.StatusCode, status, b)
	}
}

// wantError fails the test unless resp has the status and a JSON body that
// is a JSON-RPC error with the code; it returns the error.
func wantError(t *testing.T, resp *http.Response, status int, code int64) *jsonrpc.Response {
	t.Helper()
	wantStatus(t, resp, status)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	msg, err := jsonrpc.DecodeMessage(readAll(t, resp))
	if err != nil {
		t.Fatalf("the body is not a JSON-RPC message: %v", err)
	}
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error == nil {
		t.Fatalf("the body is %#v, want an error response", msg)
	}
	if r.Error.Code != code {
		t.Fatalf("error %d %q, want code %d", r.Error.Code, r.Error.Message, code)
	}
	return r
}

// wantResponse decodes a JSON response body.
func wantResponse(t *testing.T, resp *http.Response) *jsonrpc.Response {
	t.Helper()
	wantStatus(t, resp, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	msg, err := jsonrpc.DecodeMessage(readAll(t, resp))
	if err != nil {
		t.Fatalf("the body is not a JSON-RPC message: %v", err)
	}
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		t.Fatalf("the body is %#v, want a response", msg)
	}
	return r
}

// events reads SSE events from a response until it ends.
func events(t *testing.T, resp *http.Response) []sse.Event {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	r := sse.NewReader(resp.Body, 1<<20)
	var out []sse.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reading events: %v", err)
		}
		ev.Data = bytes.Clone(ev.Data)
		out = append(out, ev)
	}
}

// nextEvent reads one event with data from r.
func nextEvent(t *testing.T, r *sse.Reader) sse.Event {
	t.Helper()
	ev, err := r.Next()
	if err != nil {
		t.Fatalf("reading an event: %v", err)
	}
	ev.Data = bytes.Clone(ev.Data)
	return ev
}

// message decodes an event's data.
func message(t *testing.T, ev sse.Event) jsonrpc.Message {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage(ev.Data)
	if err != nil {
		t.Fatalf("event %q data %q is not a message: %v", ev.ID, ev.Data, err)
	}
	return msg
}

// initSession starts a legacy session at version v and returns its ID.
func initSession(t *testing.T, url, v string) string {
	t.Helper()
	resp := do(t, "POST", url, legacyHeaders(""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	r := wantResponse(t, resp)
	if r.Error != nil {
		t.Fatalf("initialize failed: %v", r.Error)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatal("initialize answered without Mcp-Session-Id")
	}
	h := legacyHeaders(sid)
	h["Mcp-Protocol-Version"] = v
	wantStatus(t, do(t, "POST", url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)
	return sid
}

// callBody returns a legacy tools/call body.
func callBody(id, tool, text string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"` + text + `"}}}`
}
