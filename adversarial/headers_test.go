package adversarial

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/transport/streamable"
)

// headerCase is a request to the MCP endpoint with wrong or missing
// headers, or an HTTP method or body size the endpoint refuses.
type headerCase struct {
	name   string
	method string              // the HTTP method; empty means POST
	edit   func(h http.Header) // what is wrong with the well-formed headers
	// body replaces the well-formed body (a valid tools/call) when set.
	body   func(v string) io.Reader
	status int
	code   int64 // the JSON-RPC error code the body carries; 0: none is checked
}

// codeTransport is the implementation-defined code weft gives transport
// refusals (405, 406, 413, 415), whose HTTP status says the rest.
const codeTransport = -32000

func setHeader(name, value string) func(http.Header) {
	return func(h http.Header) { h.Set(name, value) }
}

func dropHeader(name string) func(http.Header) {
	return func(h http.Header) { h.Del(name) }
}

func huge(chunked bool) func(v string) io.Reader {
	return func(v string) io.Reader {
		b := newHugeBody(v, hugeBodySize)
		b.chunked = chunked
		return b
	}
}

// mediaCases are refused alike in both eras.
var mediaCases = []headerCase{
	{name: "Content-Type missing", edit: dropHeader("Content-Type"), status: http.StatusUnsupportedMediaType, code: codeTransport},
	{name: "Content-Type text/plain", edit: setHeader("Content-Type", "text/plain"), status: http.StatusUnsupportedMediaType, code: codeTransport},
	{name: "Content-Type malformed", edit: setHeader("Content-Type", "application/json; charset"), status: http.StatusUnsupportedMediaType, code: codeTransport},
	{name: "Content-Type with a charset is fine", edit: setHeader("Content-Type", "application/json; charset=utf-8"), status: http.StatusOK},
	{name: "Accept missing", edit: dropHeader("Accept"), status: http.StatusNotAcceptable, code: codeTransport},
	{name: "Accept without text/event-stream", edit: setHeader("Accept", "application/json"), status: http.StatusNotAcceptable, code: codeTransport},
	{name: "Accept without application/json", edit: setHeader("Accept", "text/event-stream"), status: http.StatusNotAcceptable, code: codeTransport},
	{name: "Accept */* is fine", edit: setHeader("Accept", "*/*"), status: http.StatusOK},
	{name: "100 MB body with its length", body: huge(false), status: http.StatusRequestEntityTooLarge, code: codeTransport},
	{name: "100 MB body chunked", body: huge(true), status: http.StatusRequestEntityTooLarge, code: codeTransport},
	{name: "PUT", method: http.MethodPut, status: http.StatusMethodNotAllowed, code: codeTransport},
	{name: "PATCH", method: http.MethodPatch, status: http.StatusMethodNotAllowed, code: codeTransport},
}

// legacyHeaderCases are sent with the headers of a legacy session.
var legacyHeaderCases = append([]headerCase{
	{name: "Mcp-Session-Id missing", edit: dropHeader("Mcp-Session-Id"), status: http.StatusBadRequest, code: jsonrpc.CodeInvalidRequest},
	{name: "Mcp-Session-Id unknown", edit: setHeader("Mcp-Session-Id", "0123456789abcdef0123456789abcdef"), status: http.StatusNotFound, code: streamable.CodeSessionNotFound},
	{name: "Mcp-Session-Id malformed", edit: setHeader("Mcp-Session-Id", "../../ not-an-id ;,\"'"), status: http.StatusNotFound, code: streamable.CodeSessionNotFound},
	{name: "Mcp-Session-Id of 8 KB", edit: setHeader("Mcp-Session-Id", strings.Repeat("A", 8<<10)), status: http.StatusNotFound, code: streamable.CodeSessionNotFound},
	{name: "Mcp-Session-Id repeated with another value", edit: func(h http.Header) { h.Add("Mcp-Session-Id", "other") }, status: http.StatusOK},
	{name: "MCP-Protocol-Version unsupported", edit: setHeader("MCP-Protocol-Version", "1999-01-01"), status: http.StatusBadRequest, code: jsonrpc.CodeInvalidRequest},
	{name: "MCP-Protocol-Version not a version", edit: setHeader("MCP-Protocol-Version", "latest"), status: http.StatusBadRequest, code: jsonrpc.CodeInvalidRequest},
	{name: "MCP-Protocol-Version modern on a session", edit: setHeader("MCP-Protocol-Version", mcp.Version20260728), status: http.StatusBadRequest, code: jsonrpc.CodeInvalidRequest},
	{name: "MCP-Protocol-Version missing is taken as an older client", edit: dropHeader("MCP-Protocol-Version"), status: http.StatusOK},
	{name: "GET without Mcp-Session-Id", method: http.MethodGet, edit: dropHeader("Mcp-Session-Id"), status: http.StatusBadRequest, code: codeTransport},
	{name: "GET with an unknown Mcp-Session-Id", method: http.MethodGet, edit: setHeader("Mcp-Session-Id", "nope"), status: http.StatusNotFound, code: streamable.CodeSessionNotFound},
	{name: "GET without text/event-stream in Accept", method: http.MethodGet, edit: setHeader("Accept", "application/json"), status: http.StatusNotAcceptable, code: codeTransport},
	{name: "DELETE with an unknown Mcp-Session-Id", method: http.MethodDelete, edit: setHeader("Mcp-Session-Id", "nope"), status: http.StatusNotFound, code: streamable.CodeSessionNotFound},
	{name: "initialize inside a session is a second session", body: func(v string) io.Reader { return strings.NewReader(initializeRequest(v)) }, status: http.StatusOK},
}, mediaCases...)

// modernHeaderCases are sent with the headers of a 2026-07-28 request.
var modernHeaderCases = append([]headerCase{
	{name: "MCP-Protocol-Version missing", edit: dropHeader("MCP-Protocol-Version"), status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch},
	{name: "MCP-Protocol-Version differs from _meta", edit: setHeader("MCP-Protocol-Version", mcp.Version20251125), status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch},
	{name: "unsupported version in header and _meta", edit: setHeader("MCP-Protocol-Version", "2099-01-01"),
		body: func(string) io.Reader {
			return strings.NewReader(strings.ReplaceAll(toolCall(mcp.Version20260728, "1", "add", `{"a":1,"b":2}`), mcp.Version20260728, "2099-01-01"))
		},
		status: http.StatusBadRequest, code: mcp.CodeUnsupportedProtocolVersion},
	{name: "Mcp-Method missing", edit: dropHeader("Mcp-Method"), status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch},
	{name: "Mcp-Method differs from the body", edit: setHeader("Mcp-Method", "tools/list"), status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch},
	{name: "Mcp-Method in another case", edit: setHeader("Mcp-Method", "Tools/Call"), status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch},
	{name: "Mcp-Name missing", edit: dropHeader("Mcp-Name"), status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch},
	{name: "Mcp-Name differs from the body", edit: setHeader("Mcp-Name", "echo"), status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch},
	{name: "Mcp-Name with invalid base64", edit: setHeader("Mcp-Name", "=?base64?not base64!?="), status: http.StatusBadRequest, code: mcp.CodeHeaderMismatch},
	{name: "Mcp-Name in base64 is fine", edit: setHeader("Mcp-Name", "=?base64?YWRk?="), status: http.StatusOK},
	{name: "Mcp-Session-Id is ignored", edit: setHeader("Mcp-Session-Id", "nope"), status: http.StatusOK},
	{name: "GET", method: http.MethodGet, status: http.StatusMethodNotAllowed, code: codeTransport},
	{name: "DELETE", method: http.MethodDelete, status: http.StatusMethodNotAllowed, code: codeTransport},
}, mediaCases...)

// run sends the case with headers h (before its edit) and body (unless it
// has its own), and checks the status and error code.
func (hc headerCase) run(t *testing.T, c *http.Client, url, v string, h http.Header, body string) {
	t.Helper()
	if hc.edit != nil {
		hc.edit(h)
	}
	var r io.Reader = strings.NewReader(body)
	if hc.body != nil {
		r = hc.body(v)
	}
	method := hc.method
	if method == "" {
		method = http.MethodPost
	}
	e := do(t, c, method, url, h, r)
	if e.status != hc.status {
		t.Fatalf("status %d, want %d (body %.300q)", e.status, hc.status, e.body)
	}
	if hc.code == 0 {
		return
	}
	if code := e.errorCode(t); code != hc.code {
		t.Errorf("error %d, want %d (body %.300q)", code, hc.code, e.body)
	}
}

// TestStreamableLegacySessionRefusesBadHeaders sends requests with wrong
// or missing headers in a legacy session: each gets the status and error
// the transport names, the session serves a valid request afterwards, and
// a call in flight in another session completes unaffected.
func TestStreamableLegacySessionRefusesBadHeaders(t *testing.T) {
	hf := startHTTP(t)
	b := startLegacyBystander(t, hf, "legacy")
	v := mcp.Version20251125
	s := openLegacy(t, hf, v)
	for _, hc := range legacyHeaderCases {
		t.Run(hc.name, func(t *testing.T) {
			hc.run(t, s.client, s.url, v, s.headers(), toolCall(v, "1", "add", `{"a":1,"b":2}`))
			s.alive(t)
		})
	}
	b.finish(t, hf)
}

// TestStreamableModernRefusesBadHeaders sends 2026-07-28 requests with
// wrong or missing headers: each gets the status and error the transport
// names, the endpoint serves a valid request afterwards, and a call in
// flight completes unaffected.
func TestStreamableModernRefusesBadHeaders(t *testing.T) {
	hf := startHTTP(t)
	b := startModernBystander(t, hf, "modern")
	c := newHTTPClient(t)
	url := hf.url + "/mcp"
	for _, hc := range modernHeaderCases {
		t.Run(hc.name, func(t *testing.T) {
			body := toolCall(mcp.Version20260728, "1", "add", `{"a":1,"b":2}`)
			hc.run(t, c, url, mcp.Version20260728, modernHeaders(body), body)
			modernAlive(t, c, url)
		})
	}
	b.finish(t, hf)
}
